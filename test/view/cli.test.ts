import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gitgood } from "../helpers/cli.js";
import { rec, writeRun } from "../report/records.js";

const tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-view-cli-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const run = path.join(tmp, "run");
writeRun(run, [rec("acme_merge_0000", "MCR")]);

describe("gitgood view options", () => {
  it("refuses to bind beyond loopback without a token, a bad port, a short token and a directory that is not a run, each in one line", async () => {
    for (const [args, message] of [
      [["--host", "0.0.0.0"], /lets other machines connect/],
      [["--port", "70000"], /--port takes a port number/],
      [["--port", "abc"], /--port takes a port number/],
      [["--token", "short"], /at least 16 characters/],
    ] as const) {
      const r = await gitgood(["view", run, ...args]);
      expect(r.code, args.join(" ")).not.toBe(0);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    }
    const notRun = await gitgood(["view", tmp]);
    expect(notRun.stderr).toMatch(/not a gitgood run directory/);
  });

  it("serves until stopped and prints the address with its token on stdout", async () => {
    const stop = new AbortController();
    const out: string[] = [];
    const { main } = await import("../../src/cli/main.js");
    const { captureSink } = await import("../helpers/cli.js");
    const stdout = captureSink((t) => out.push(t));
    const done = main(["view", run], { stdout, stderr: captureSink(), stdin: (async function* () {})(), signal: stop.signal });
    await expect.poll(() => out.join(""), { timeout: 20_000 }).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}\n$/);
    const url = out.join("").trim();
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("gitgood view");
    stop.abort();
    await done;
  });
});
