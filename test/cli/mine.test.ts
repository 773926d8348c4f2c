import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SampleSchema } from "../../src/dataset/sample.js";
import { gitgood, spawnGitgood } from "../helpers/cli.js";
import { Fixture } from "../helpers/fixture.js";

let f: Fixture;

beforeAll(() => {
  f = new Fixture();
  f.commit("base", { "a.py": Fixture.lines("a", 20), "b.py": "b\n" });
  f.commit("sep", { "README.md": "r\n" });
  for (let i = 0; i < 3; i++) f.commit(`b ${i}`, { "b.py": `b${i}\n` });
  f.checkout("side", true);
  f.commit("side", { "a.py": Fixture.lines("side", 20) });
  f.checkout("main");
  f.commit("main", { "a.py": Fixture.lines("main", 20) });
  f.merge("side", { "a.py": Fixture.lines("resolved", 20) });
  f.git("remote", "add", "origin", "git@github.com:acme/widgets.git");
});

afterAll(() => f.remove());

/** stderr must be one line and never a stack trace. */
function expectOneLineError(stderr: string, pattern: RegExp): void {
  const lines = stderr.trim().split("\n");
  expect(lines[0]).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe("gitgood mine (CLI)", () => {
  it("writes valid samples to stdout and a summary to stderr (its own process)", () => {
    const r = spawnGitgood(["mine", f.dir]);
    expect(r.code).toBe(0);
    const samples = r.stdout.trim().split("\n").map((l) => SampleSchema.parse(JSON.parse(l)));
    expect(samples.map((s) => s.id)).toEqual(["acme_widgets_merge_0000", "acme_widgets_file_commit_chain_0000"]);
    expect(Object.keys(JSON.parse(r.stdout.split("\n")[0] ?? "{}"))).toEqual([
      "id",
      "name",
      "default_branch",
      "license",
      "stargazers",
      "created_at",
      "topics",
      "programming_language",
      "scenario",
      "sample_type",
      "project_size",
      "difficulty",
    ]);
    expect(r.stderr).toMatch(/mined 2 samples from acme\/widgets/);
    expect(r.stderr).toMatch(/merge\s+1\s+easy 1, medium 0, hard 0/);
  });

  it("is byte-identical from run to run, and --json gives a machine-readable summary", async () => {
    const a = await gitgood(["mine", f.dir, "--json"]);
    const b = await gitgood(["mine", f.dir, "--json", "--jobs", "1"]);
    expect(a.stdout).toBe(b.stdout);
    const summary = JSON.parse(a.stderr);
    expect(summary).toMatchObject({ schema_version: 1, repository: "acme/widgets", excluded: false });
    expect(summary.samples.file_commit_chain.total).toBe(1);
  });

  it("writes to -o FILE and filters by --type", async () => {
    const out = path.join(f.scratch("out"), "samples.jsonl");
    const r = await gitgood(["mine", f.dir, "--type", "merge", "-o", out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    const lines = readFileSync(out, "utf8").trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "").sample_type).toBe("merge");
  });

  it("reads --metadata and rejects a metadata file that is not JSON", async () => {
    const dir = f.scratch("meta");
    const good = path.join(dir, "good.json");
    writeFileSync(good, JSON.stringify({ stargazers_count: 1234, topics: ["a", "b"] }));
    const ok = await gitgood(["mine", f.dir, "--metadata", good]);
    expect(JSON.parse(ok.stdout.split("\n")[0] ?? "")).toMatchObject({ stargazers: 1234, topics: "a;b" });
    const bad = path.join(dir, "bad.json");
    writeFileSync(bad, "{ stars: ");
    const r = await gitgood(["mine", f.dir, "--metadata", bad]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe("");
    expectOneLineError(r.stderr, /^gitgood: metadata file .*bad\.json is not valid JSON/);
  });

  it("gives one-line errors for bad input and bad options", async () => {
    const notRepo = await gitgood(["mine", f.scratch("empty-dir")]);
    expect(notRepo.code).toBe(1);
    expectOneLineError(notRepo.stderr, /^gitgood: not a git repository/);
    const badNum = await gitgood(["mine", f.dir, "--max-chain", "lots"]);
    expect(badNum.code).not.toBe(0);
    expectOneLineError(badNum.stderr, /--max-chain takes a whole number/);
    const badType = await gitgood(["mine", f.dir, "--type", "cherry"]);
    expect(badType.code).not.toBe(0);
    expect(badType.stderr).toMatch(/cherry/);
    const badLang = await gitgood(["mine", f.dir, "--languages", "python,cobol"]);
    expect(badLang.code).toBe(2);
    expectOneLineError(badLang.stderr, /unknown language 'cobol'/);
  });

  it("prints help and version", async () => {
    const help = await gitgood(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/mine \[options\] <repo>/);
    const mineHelp = await gitgood(["mine", "--help"]);
    expect(mineHelp.stdout).toMatch(/--max-conflicts/);
    expect((await gitgood(["--version"])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe("git on PATH", () => {
  /** The git on PATH is checked once per process: a freshly imported CLI stands for a new process. */
  async function freshMain(): Promise<typeof import("../../src/cli/main.js").main> {
    vi.resetModules();
    return (await import("../../src/cli/main.js")).main;
  }

  function fakeGit(dir: string, script: string): void {
    writeFileSync(path.join(dir, "git"), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  }

  it("refuses a git older than 2.38 with one line", async () => {
    const dir = f.scratch("old-git");
    fakeGit(dir, 'echo "git version 2.30.1"');
    const r = await gitgood(["mine", f.dir], { env: { PATH: dir } }, await freshMain());
    expect(r.code).toBe(1);
    expectOneLineError(r.stderr, /^gitgood: git 2\.30\.1 is too old: gitgood needs git 2\.38\.0 or newer/);
  });

  it("says so when git is missing", async () => {
    const dir = f.scratch("no-git");
    const r = await gitgood(["mine", f.dir], { env: { PATH: dir } }, await freshMain());
    expect(r.code).toBe(1);
    expectOneLineError(r.stderr, /^gitgood: git was not found on PATH/);
  });
});
