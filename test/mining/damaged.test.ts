import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { diffCommits, type CommitDiff } from "../../src/git/history.js";
import { Repo } from "../../src/git/repo.js";
import { mine } from "../../src/mining/mine.js";
import { useFixtures } from "../helpers/fixture.js";

const fixture = useFixtures((f) => {
  f.commit("base", { "a.py": "a\n" });
});

async function diffAllOf(repo: Repo, commits: string[]): Promise<Map<string, CommitDiff>> {
  const out = new Map<string, CommitDiff>();
  for await (const d of diffCommits(repo, commits, { jobs: 1, numstat: true })) out.set(d.commit, d);
  return out;
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
    const streams = vi.spyOn(repo, "stream");
    const commits = f.git("rev-list", "--reverse", "HEAD").split("\n");
    const diffs = await diffAllOf(repo, commits);

    expect([...diffs.values()].filter((d) => d.unreadable).map((d) => d.commit).sort()).toEqual([lost, next, treeLost].sort());
    expect(diffs.get(c1)?.files.map((x) => [x.path, x.lines])).toEqual([["b.py", 1]]);
    expect(diffs.get(c3)?.files.map((x) => [x.path, x.lines])).toEqual([["a.py", 2]]);
    expect(diffs.get(c6)?.files.map((x) => [x.path, x.lines])).toEqual([["a.py", 2]]);
    expect(diffs.has(empty)).toBe(false);
    expect(diffs.size).toBe(commits.length - 1);
    expect(commits).toHaveLength(8);
    // One process to start with and one more after each commit git stopped on.
    expect(streams).toHaveBeenCalledTimes(4);
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
      const r = await mine(f.dir, { type: "file_commit_chain", name: "o/r", jobs: 1 });
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
