import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Repo } from "../../src/git/repo.js";
import { diffBatches, MissingTrees, type CommitDiff } from "../../src/git/treediff.js";
import { mine } from "../../src/mining/mine.js";
import { useFixtures } from "../helpers/fixture.js";

const fixture = useFixtures((f) => {
  f.commit("base", { "a.py": "a\n" });
});

async function diffAllOf(repo: Repo, commits: string[]): Promise<Map<string, CommitDiff>> {
  const out = new Map<string, CommitDiff>();
  const missing = new MissingTrees(repo);
  try {
    for await (const batch of diffBatches(repo, commits, { jobs: 1, numstat: true, missing })) for (const d of batch) out.set(d.commit, d);
  } finally {
    missing.close();
  }
  return out;
}

/** Runs `fn` with git tracing into a file; returns the `git diff-tree` processes started, with their arguments. */
async function tracingDiffTrees<T>(dir: string, fn: () => Promise<T>): Promise<{ result: T; diffTrees: string[] }> {
  const trace = path.join(dir, "git.trace");
  const before = process.env.GIT_TRACE;
  process.env.GIT_TRACE = trace;
  try {
    const result = await fn();
    const diffTrees = readFileSync(trace, "utf8").split("\n").filter((l) => /built-in: git diff-tree --stdin/.test(l));
    return { result, diffTrees };
  } finally {
    if (before === undefined) delete process.env.GIT_TRACE;
    else process.env.GIT_TRACE = before;
  }
}

describe("diffing a damaged copy", () => {
  it("names each commit git stops on (missing blob or tree) with one process per stop, and diffs the rest", async () => {
    const f = fixture();
    const c1 = f.commit("one", { "b.py": "b\n" });
    const lost = f.commit("blob lost", { "c.py": "c\n" });
    // The next version of c.py needs the lost blob too (as its old side); then the working tree cannot stand in for it.
    const next = f.commit("c again", { "c.py": "c2\n" });
    const c3 = f.commit("three", { "a.py": "a2\n" });
    f.git("commit", "--allow-empty", "-m", "empty");
    const empty = f.head();
    const treeLost = f.commit("tree lost", { "d/x.py": "x\n" });
    const c6 = f.commit("six", { "a.py": "a3\n" });
    const blob = f.git("rev-parse", `${lost}:c.py`);
    const tree = f.git("rev-parse", `${treeLost}:d`);
    for (const oid of [blob, tree]) rmSync(path.join(f.dir, ".git", "objects", oid.slice(0, 2), oid.slice(2)));

    const repo = await Repo.open(f.dir);
    const commits = f.git("rev-list", "--reverse", "HEAD").split("\n");
    const { result: diffs, diffTrees } = await tracingDiffTrees(f.scratch("trace"), () => diffAllOf(repo, commits));

    expect([...diffs.values()].filter((d) => d.unreadable).map((d) => d.commit).sort()).toEqual([lost, next, treeLost].sort());
    expect(diffs.get(c1)?.files.map((x) => [x.path, x.lines])).toEqual([["b.py", 1]]);
    expect(diffs.get(c3)?.files.map((x) => [x.path, x.lines])).toEqual([["a.py", 2]]);
    expect(diffs.get(c6)?.files.map((x) => [x.path, x.lines])).toEqual([["a.py", 2]]);
    expect(diffs.has(empty)).toBe(false);
    expect(diffs.size).toBe(commits.length - 1);
    expect(commits).toHaveLength(8);
    // One process to start with and one more after each stop: two missing blobs, one missing tree.
    expect(diffTrees).toHaveLength(4);
  });
});

describe("mining a damaged copy", () => {
  it("finds a commit whose blob is missing though no chain needs its line counts, without a diff-tree per commit", async () => {
    const f = fixture();
    f.commit("pause", { "README.md": "p\n" });
    // This commit changes only README.md, so no run holds it, but it ends the run above it.
    const lost = f.commit("readme lost", { "README.md": "lost\n" });
    const run: string[] = [];
    for (let i = 0; i < 3; i++) run.push(f.commit(`edit a.py #${i}`, { "a.py": `a\n${"x\n".repeat(i + 1)}` }));
    const blob = f.git("rev-parse", `${lost}:README.md`);
    rmSync(path.join(f.dir, ".git", "objects", blob.slice(0, 2), blob.slice(2)));

    const trace = path.join(f.scratch("trace"), "git.trace");
    const before = process.env.GIT_TRACE;
    process.env.GIT_TRACE = trace;
    try {
      const r = await mine({ repoPath: f.dir, type: "file_commit_chain", name: "o/r", jobs: 1 });
      // As when every diff is read: the commit cannot be read, and the run that ends on it may be cut.
      expect(r.summary.unreadable_commits).toBe(1);
      expect(r.samples).toEqual([]);
      expect(r.summary.dropped.file_commit_chain.missing_objects).toBe(1);
    } finally {
      if (before === undefined) delete process.env.GIT_TRACE;
      else process.env.GIT_TRACE = before;
    }
    // One pass over the trees, and none over line counts (the only run is cut): git never stopped on the commit.
    const diffTrees = readFileSync(trace, "utf8").split("\n").filter((l) => /built-in: git diff-tree --stdin/.test(l));
    expect(diffTrees).toHaveLength(1);
    expect(run).toHaveLength(3);
  });
});

describe("mining a copy that lacks a tree many commits need", () => {
  it("finds every commit that needs it with one more diff-tree process, not one per commit", async () => {
    const f = fixture();
    // d/ toggles between two states, so every commit below shows the lost state on one side or the other.
    const needing: string[] = [];
    for (let i = 0; i < 8; i++) needing.push(f.commit(`toggle #${i}`, { "d/x.py": i % 2 === 0 ? "one\n" : "two\n" }));
    // A readable commit between them and the run below, so the run does not end on an unreadable one.
    f.commit("pause", { "README.md": "p\n" });
    const run: string[] = [];
    for (let i = 0; i < 3; i++) run.push(f.commit(`edit a.py #${i}`, { "a.py": `a\n${"x\n".repeat(i + 1)}` }));
    const tree = f.git("rev-parse", `${needing[0]}:d`);
    rmSync(path.join(f.dir, ".git", "objects", tree.slice(0, 2), tree.slice(2)));

    const { result: r, diffTrees } = await tracingDiffTrees(f.scratch("trace"), () =>
      mine({ repoPath: f.dir, type: "file_commit_chain", name: "o/r", jobs: 1 }),
    );
    expect(r.summary.unreadable_commits).toBe(needing.length);
    // The run of a.py above them is read as on an intact copy.
    expect(r.samples.map((s) => s.scenario)).toEqual([
      expect.objectContaining({ file: "a.py", oldest_commit: run[0], newest_commit: run[2], times_seen_consecutively: 3 }),
    ]);
    const treePasses = diffTrees.filter((l) => !l.includes("--numstat"));
    expect(treePasses).toHaveLength(2);
    expect(diffTrees).toHaveLength(3);
  });
});
