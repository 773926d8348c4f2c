import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyPatch, changedPaths, resetPaths } from "../../src/git/apply.js";
import { readIndexFile } from "../../src/git/index-file.js";
import { Repo } from "../../src/git/repo.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { applyWithStrategies } from "../../src/swe/evaluate.js";
import { countGitProcesses } from "../helpers/git-count.js";
import { useSandboxRoot } from "../helpers/scenarios.js";
import { inEvaluationSandbox, pythonTask, type PythonTask } from "../helpers/swe.js";

// Two files that differ in one line: a patch of the second whose preimage is the first (its blob is in the
// sandbox's store) does not apply directly, and --3way stops on a conflict, leaving markers and stages.
const FIRST = "one\ntwo\nthree\n";
const SECOND = "one\nTWO\nthree\n";

let root: ReturnType<typeof useSandboxRoot>;
let task: PythonTask;
let source: Repo;
let conflicting: string;

beforeAll(async () => {
  root = useSandboxRoot();
  task = pythonTask({ "calc/first.txt": FIRST, "calc/second.txt": SECOND, ".gitignore": "*.log\n" });
  source = await Repo.open(task.fixture.dir);
  const before = hash(FIRST);
  const after = hash("one\n2\nthree\n");
  conflicting = [
    "diff --git a/calc/second.txt b/calc/second.txt",
    `index ${before.slice(0, 12)}..${after.slice(0, 12)} 100644`,
    "--- a/calc/second.txt",
    "+++ b/calc/second.txt",
    "@@ -1,3 +1,3 @@",
    " one",
    "-two",
    "+2",
    " three",
    "",
  ].join("\n");
}, 60_000);

function hash(text: string): string {
  const file = path.join(task.fixture.scratch(`blob-${Math.random().toString(36).slice(2)}`), "f");
  writeFileSync(file, text);
  return task.fixture.git("hash-object", file).trim();
}

afterAll(() => {
  task?.fixture.remove();
  root.cleanup();
});

function withSandbox(work: (s: Sandbox) => Promise<void>): Promise<void> {
  return inEvaluationSandbox(source, task.sample(), "strategies", work);
}

/** A copy of the sandbox's index as its checkout wrote it (its time kept), through which `changedPaths` compares the work tree with HEAD. */
function baseIndexCopy(s: Sandbox): string {
  const index = path.join(s.ownGitDir, "index");
  const copy = s.privatePath("base.index");
  copyFileSync(index, copy);
  const st = statSync(index);
  utimesSync(copy, st.atime, st.mtime);
  return copy;
}

const unmerged = (s: Sandbox): number => (readIndexFile(s.ownGitDir) ?? []).filter((e) => e.stage !== 0).length;

describe("apply strategies and putting paths back", () => {
  it("a --3way that stops on a conflict is put back before the next strategy: no marker, no stage, the file as base has it", async () => {
    await withSandbox(async (s) => {
      expect(await applyWithStrategies(s, Buffer.from(conflicting))).toBeNull();
      expect(readFileSync(path.join(s.workDir, "calc/second.txt"), "utf8")).toBe(SECOND);
      expect(unmerged(s)).toBe(0);
    });
  }, 60_000);

  it("resetPaths: a tracked file changed, a new file in the index, an ignored new file and a missing one all end as HEAD has them", async () => {
    await withSandbox(async (s) => {
      const before = readIndexFile(s.ownGitDir);
      writeFileSync(path.join(s.workDir, "calc/first.txt"), "changed\n");
      const added = "diff --git a/calc/added.py b/calc/added.py\nnew file mode 100644\n--- /dev/null\n+++ b/calc/added.py\n@@ -0,0 +1 @@\n+x = 1\n";
      expect((await applyPatch(s.repo, added, "git apply --3way")).applied).toBe(true);
      writeFileSync(path.join(s.workDir, "calc/run.log"), "ignored\n");
      await resetPaths(s.repo, ["calc/first.txt", "calc/added.py", "calc/run.log", "calc/missing.py"]);
      expect(readFileSync(path.join(s.workDir, "calc/first.txt"), "utf8")).toBe(FIRST);
      expect(existsSync(path.join(s.workDir, "calc/added.py"))).toBe(false);
      expect(existsSync(path.join(s.workDir, "calc/run.log"))).toBe(false);
      expect(readIndexFile(s.ownGitDir)?.map((e) => [e.path, e.oid])).toEqual(before?.map((e) => [e.path, e.oid]));
    });
  }, 60_000);

  it("resetPaths told HEAD's index runs no git for paths nothing holds, and still resets one the index holds", async () => {
    await withSandbox(async (s) => {
      const head = readIndexFile(s.ownGitDir) ?? [];
      expect((await countGitProcesses(() => resetPaths(s.repo, ["calc/new_a.py", "calc/new_b.py"], head))).processes).toBe(0);
      const added = "diff --git a/calc/new_a.py b/calc/new_a.py\nnew file mode 100644\n--- /dev/null\n+++ b/calc/new_a.py\n@@ -0,0 +1 @@\n+x = 1\n";
      expect((await applyPatch(s.repo, added, "git apply --3way")).applied).toBe(true);
      // Held by the index alone: the work tree's copy is gone.
      rmSync(path.join(s.workDir, "calc/new_a.py"));
      await resetPaths(s.repo, ["calc/new_a.py", "calc/new_b.py"], head);
      expect(existsSync(path.join(s.workDir, "calc/new_a.py"))).toBe(false);
      expect((readIndexFile(s.ownGitDir) ?? []).some((e) => e.path === "calc/new_a.py")).toBe(false);
    });
  }, 60_000);

  it("resetPaths told HEAD's index and the work tree's changes runs no git where the files are as HEAD has them", async () => {
    await withSandbox(async (s) => {
      const head = readIndexFile(s.ownGitDir) ?? [];
      const base = baseIndexCopy(s);
      writeFileSync(path.join(s.workDir, "calc/second.txt"), "the agent's change\n");
      const changed = await changedPaths(s.repo, base);
      expect(changed).toEqual(["calc/second.txt"]);
      expect((await countGitProcesses(() => resetPaths(s.repo, ["calc/first.txt"], head, changed))).processes).toBe(0);
      expect(readFileSync(path.join(s.workDir, "calc/first.txt"), "utf8")).toBe(FIRST);
    });
  }, 60_000);

  it("resetPaths told the work tree's changes still puts back a test file an agent edited, and one behind a folder made a link", async () => {
    await withSandbox(async (s) => {
      const head = readIndexFile(s.ownGitDir) ?? [];
      const base = baseIndexCopy(s);
      writeFileSync(path.join(s.workDir, "calc/first.txt"), "assert True  # the agent's test\n");
      await resetPaths(s.repo, ["calc/first.txt"], head, await changedPaths(s.repo, base));
      expect(readFileSync(path.join(s.workDir, "calc/first.txt"), "utf8")).toBe(FIRST);

      // The folder becomes a link to a copy whose test file is the agent's: git reports the file behind it as deleted.
      const elsewhere = path.join(s.workDir, "elsewhere");
      mkdirSync(elsewhere);
      writeFileSync(path.join(elsewhere, "first.txt"), "assert True  # the agent's test\n");
      writeFileSync(path.join(elsewhere, "second.txt"), SECOND);
      renameSync(path.join(s.workDir, "calc"), path.join(s.workDir, "calc-moved"));
      symlinkSync("elsewhere", path.join(s.workDir, "calc"));
      await resetPaths(s.repo, ["calc/first.txt"], head, await changedPaths(s.repo, base));
      expect(statSync(path.join(s.workDir, "calc")).isDirectory()).toBe(true);
      expect(readFileSync(path.join(s.workDir, "calc/first.txt"), "utf8")).toBe(FIRST);
      expect(readFileSync(path.join(elsewhere, "first.txt"), "utf8")).toBe("assert True  # the agent's test\n");
    });
  }, 60_000);

  it("resetPaths told HEAD's index puts back a file a plain git apply changed with one git process, no reset", async () => {
    await withSandbox(async (s) => {
      const head = readIndexFile(s.ownGitDir) ?? [];
      const changeFirst = ["diff --git a/calc/first.txt b/calc/first.txt", "--- a/calc/first.txt", "+++ b/calc/first.txt", "@@ -1,3 +1,3 @@", " one", "-two", "+changed", " three", ""].join("\n");
      expect((await applyPatch(s.repo, changeFirst, "git apply")).applied).toBe(true);
      expect((await countGitProcesses(() => resetPaths(s.repo, ["calc/first.txt"], head))).processes).toBe(1);
      expect(readFileSync(path.join(s.workDir, "calc/first.txt"), "utf8")).toBe(FIRST);
      expect(readIndexFile(s.ownGitDir)?.map((e) => [e.path, e.oid])).toEqual(head.map((e) => [e.path, e.oid]));
    });
  }, 60_000);
});
