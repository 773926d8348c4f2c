import { execFileSync } from "node:child_process";
import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChainSample } from "../../src/dataset/sample.js";
import { startPausedRebase } from "../../src/git/rebase.js";
import { STORED_BYTES_ATTRIBUTES } from "../../src/git/stored-bytes.js";
import { setupScenario } from "../../src/scenarios/index.js";
import type { HistoryFinalState } from "../../src/scenarios/shared/schemas.js";
import type { LiveScenario } from "../../src/scenarios/types.js";
import { fixtureEnv, Fixture } from "../helpers/fixture.js";
import { chainSample, useSandboxRoot } from "../helpers/scenarios.js";

/**
 * A project whose attributes ask for conversions its own commits do not follow, as mockito's do:
 * `crlf.bat` is stored with CRLF under `text eol=crlf` (git's check-in would store LF, so git finds the
 * checked-out file changed whenever it compares contents), `lf.bat` is stored with LF under the same
 * attributes (git's checkout would write CRLF). The attributes come in a commit after both files, as a
 * project that added them later has it; then a chain of three commits to `lib.py`.
 */
const CRLF = "@echo off\r\nrem stored with CRLF\r\n";
const LF = "@echo off\nrem stored with LF\n";

let fx: Fixture;
let sample: ChainSample;
let base: string;
let sandboxes: ReturnType<typeof useSandboxRoot>;
const open: LiveScenario[] = [];

beforeAll(() => {
  sandboxes = useSandboxRoot();
  fx = new Fixture();
  fx.commit("start", { "crlf.bat": CRLF, "lf.bat": LF, "lib.py": "a = 1\n" });
  // Each later commit stages its own file alone: `git add -A` would store a racy crlf.bat converted.
  const commitOnly = (message: string, file: string, text: string): string => {
    fx.write({ [file]: text });
    fx.git("add", "--", file);
    fx.git("commit", "-q", "-m", message);
    return fx.head();
  };
  base = commitOnly("attributes", ".gitattributes", "* text=auto\n*.bat text eol=crlf\n");
  const c1 = commitOnly("b", "lib.py", "a = 1\nb = 2\n");
  commitOnly("c", "lib.py", "a = 1\nb = 2\nc = 3\n");
  const c3 = commitOnly("d", "lib.py", "a = 1\nb = 2\nc = 3\nd = 4\n");
  sample = chainSample("lib.py", c1, c3, 3);
  // The oracle: git itself stores crlf.bat as the project committed it, so a conversion would differ.
  expect(fx.git("cat-file", "blob", "HEAD:crlf.bat")).toBe(CRLF.trim());
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});
afterAll(() => {
  sandboxes.cleanup();
  fx.remove();
});

/** git, run by the test on the sandbox's own git directory (gitgood's, which no agent writes). */
function sandboxGit(s: LiveScenario, ...args: string[]): string {
  const { gitDir, dir } = s.sandbox.repo;
  return execFileSync("git", args, { cwd: dir, env: fixtureEnv({ GIT_DIR: gitDir, GIT_WORK_TREE: dir }), encoding: "utf8" });
}

/** Gives every tracked file the index file's own time, so git cannot trust times and compares every file's content. */
function makeRacy(s: LiveScenario): void {
  const index = statSync(path.join(s.sandbox.repo.gitDir, "index"));
  for (const f of ["crlf.bat", "lf.bat", "lib.py", ".gitattributes"]) utimesSync(path.join(s.sandbox.workDir, f), index.atime, index.mtime);
}

describe("a Git-work sandbox keeps files as the repository stores them", () => {
  for (const scenario of ["ir", "icc"] as const) {
    it(`${scenario.toUpperCase()}: the full work tree holds the stored bytes and git finds it clean when it compares contents`, async () => {
      const s = await setupScenario(sample, fx.dir, { scenario, workTree: "full" });
      open.push(s);
      const work = s.sandbox.workDir;
      expect(readFileSync(path.join(work, "crlf.bat"), "utf8")).toBe(CRLF);
      expect(readFileSync(path.join(work, "lf.bat"), "utf8")).toBe(LF);
      makeRacy(s);
      // `git status` refreshes first: a file whose time moved is compared by content, as a rebase does.
      const changed = sandboxGit(s, "status", "--porcelain", "--untracked-files=no").split("\n").filter(Boolean);
      expect(changed.filter((l) => l.endsWith(".bat"))).toEqual([]);
      // The agent's own git reads the same attributes: the `.git` it sees carries them.
      expect(readFileSync(path.join(work, ".git", "info", "attributes"), "utf8")).toBe(STORED_BYTES_ATTRIBUTES);
    });
  }

  it("IR: a paused `git rebase -i` starts over a work tree git compares by content", async () => {
    const s = await setupScenario(sample, fx.dir, { scenario: "ir", workTree: "full" });
    open.push(s);
    // Back at the chain's tip, every file racy: what the set-up meets whenever its checkout and the
    // rebase fall in the same tick of the clock. git refuses to start when it finds crlf.bat changed.
    sandboxGit(s, "rebase", "--abort");
    makeRacy(s);
    const listed = await startPausedRebase(s.sandbox.repo, base, {});
    expect(listed).toHaveLength(3);
  });

  it("ICC: an agent's `git add -A` stages its own change and nothing the attributes would have converted", async () => {
    const s = await setupScenario(sample, fx.dir, { scenario: "icc", workTree: "full" });
    open.push(s);
    makeRacy(s);
    sandboxGit(s, "add", "-A");
    const staged = sandboxGit(s, "diff", "--cached", "--name-only").split("\n").filter(Boolean);
    expect(staged).toEqual(["lib.py"]);
  });

  it("IR: an agent's `.gitattributes` changes neither the patches its history is judged on nor those its own git shows", async () => {
    const s = await setupScenario(sample, fx.dir, { scenario: "ir", workTree: "full" });
    open.push(s);
    sandboxGit(s, "rebase", "--abort");
    const before = (await s.finalState()) as HistoryFinalState;
    // Written in the work tree, not committed: every file binary for git.
    writeFileSync(path.join(s.sandbox.workDir, ".gitattributes"), "* -diff\n");
    const after = (await s.finalState()) as HistoryFinalState;
    expect(after.commits.map((c) => c.diff)).toEqual(before.commits.map((c) => c.diff));
    expect(after.commits.at(-1)?.diff).toContain("+d = 4");
    // The agent's git, through the attributes file of its `.git`, shows the same text.
    expect(sandboxGit(s, "diff", "HEAD~1", "HEAD")).toContain("+d = 4");
  });
});
