import { rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { diffCommits, type CommitDiff } from "../../src/git/history.js";
import { Repo } from "../../src/git/repo.js";
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
