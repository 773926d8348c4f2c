import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { VERBS } from "../../src/cli/verbs.js";
import { captureSink, gitgood } from "../helpers/cli.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-main-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("exit codes of the CLI", () => {
  it("is 2 for commander's option and argument errors, and for no verb at all", async () => {
    for (const args of [
      ["mine", dir, "--no-such-option"],
      ["mine"],
      ["mine", dir, "--type", "cherry"],
      ["dataset", "split", "x.jsonl"],
      ["memory", "no-such-verb"],
      ["no-such-verb"],
      [],
    ]) {
      const r = await gitgood(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stdout, args.join(" ")).toBe("");
      expect(r.stderr, args.join(" ")).not.toBe("");
    }
    expect((await gitgood(["mine", dir, "--type", "cherry"])).stderr).toBe(
      "error: option '--type <type>' argument 'cherry' is invalid. Allowed choices are merge, file_commit_chain, swe, all.\n",
    );
    expect((await gitgood(["no-such-verb"])).stderr).toMatch(/^error: unknown command 'no-such-verb'\n/);
  });

  it("is 2 for a usage error of gitgood's own, 1 for data and other errors, with one line on stderr", async () => {
    expect(await gitgood(["mine", dir, "--max-chain", "lots"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "gitgood: --max-chain takes a whole number, not 'lots'\n",
    });
    expect(await gitgood(["report", dir])).toEqual({
      code: 1,
      stdout: "",
      stderr: `gitgood: ${dir} is not a gitgood run directory (no run.json)\n`,
    });
  });

  it("is 0 for help and version, written to stdout", async () => {
    for (const args of [["--help"], ["help", "tool"], ["tool", "--help"], ["dataset", "split", "--help"], ["--version"]]) {
      const r = await gitgood(args);
      expect(r.code, args.join(" ")).toBe(0);
      expect(r.stderr, args.join(" ")).toBe("");
      expect(r.stdout, args.join(" ")).not.toBe("");
    }
  });
});

describe("verbs", () => {
  afterEach(() => {
    for (const v of VERBS) vi.doUnmock(`../../src/cli/${v.name}.js`);
    vi.resetModules();
  });

  it("are all listed with their descriptions by gitgood --help", async () => {
    const help = (await gitgood(["--help"])).stdout;
    const flat = help.replace(/\s+/g, " ");
    const io = { stdout: captureSink(), stderr: captureSink(), stdin: Readable.from([]) };
    for (const v of VERBS) {
      const cmd = (await v.load())(io);
      expect(cmd.name()).toBe(v.name);
      expect(help, v.name).toMatch(new RegExp(`\\n  ${v.name} `));
      expect(flat, v.name).toContain(cmd.description().replace(/\s+/g, " "));
    }
  });

  it("are loaded only when called: gitgood tool imports no other verb", async () => {
    vi.resetModules();
    const loaded: string[] = [];
    for (const v of VERBS.filter((x) => x.name !== "tool")) {
      vi.doMock(`../../src/cli/${v.name}.js`, () => {
        loaded.push(v.name);
        return {};
      });
    }
    const { main } = await import("../../src/cli/main.js");
    const r = await gitgood(["tool", "--help"], {}, main);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: gitgood tool \[options\] \[name\]\n/);
    expect(loaded).toEqual([]);
    // The same mocks are seen when a verb is loaded: the check above can fail.
    await import("../../src/cli/mine.js");
    expect(loaded).toEqual(["mine"]);
  });
});
