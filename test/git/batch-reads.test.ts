import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCommit, readCommits } from "../../src/git/commits.js";
import { commitDiff, commitDiffs } from "../../src/git/diff.js";
import { readBlob, readBlobs } from "../../src/git/trees.js";
import { Repo } from "../../src/git/repo.js";
import { Fixture } from "../helpers/fixture.js";
import { countGitProcesses } from "../helpers/git-count.js";

let fx: Fixture;
let repo: Repo;
let oids: string[];

beforeAll(async () => {
  fx = new Fixture();
  const root = fx.commit("Root\n\nwith a body\n\n", { "a.txt": "one\n", "bin.dat": Buffer.from([0, 1, 2, 255]) as unknown as string });
  fx.git("commit", "-q", "--allow-empty", "-m", "Empty commit");
  const empty = fx.head();
  const bytes = fx.commit("Latin-1 bytes and a line that looks like an id", { "a.txt": `one\n${root}\n\xe9t\xe9\n` });
  fx.checkout("side", true);
  fx.commit("Side", { "b.txt": "b\n" });
  fx.checkout("main");
  const merge = fx.merge("side");
  oids = [root, empty, bytes, merge, bytes];
  repo = await Repo.open(fx.dir);
});
afterAll(() => fx.remove());

describe("reading several commits with one git process", () => {
  it("readCommits gives what readCommit gives for each commit, in order and with repeats, from one process", async () => {
    const one = await Promise.all(oids.map((o) => readCommit(repo, o)));
    const { result, processes } = await countGitProcesses(() => readCommits(repo, oids));
    expect(result).toEqual(one);
    expect(processes).toBe(1);
  });

  it("commitDiffs gives commitDiff's bytes for each commit (root, empty, merge, a line holding an id), from one process", async () => {
    const one = await Promise.all(oids.map(async (o) => commitDiff(await Repo.open(fx.dir), o)));
    expect(one[1]).toBe("");
    expect(one[2]).toContain(`+${oids[0] as string}\n`);
    const fresh = await Repo.open(fx.dir);
    const { result, processes } = await countGitProcesses(() => commitDiffs(fresh, oids));
    expect(result).toEqual(one);
    expect(processes).toBe(1);
  });

  it("a patch read once is given again by the same handle without a process, by commitDiff and commitDiffs alike", async () => {
    const handle = await Repo.open(fx.dir);
    const first = await commitDiffs(handle, oids.slice(0, 3));
    const again = await countGitProcesses(async () => [await commitDiff(handle, oids[2] as string), ...(await commitDiffs(handle, oids.slice(0, 3)))]);
    expect(again.result).toEqual([first[2], ...first]);
    expect(again.processes).toBe(0);
    // Only the commits not read yet are asked for, in one process.
    const more = await countGitProcesses(() => commitDiffs(handle, oids));
    expect(more.processes).toBe(1);
    expect(more.result).toEqual(await commitDiffs(await Repo.open(fx.dir), oids));
  });

  it("a missing commit is still named by MISSING_COMMIT", async () => {
    const missing = "0123456789abcdef0123456789abcdef01234567";
    await expect(readCommits(repo, [oids[0] as string, missing])).rejects.toMatchObject({ code: "MISSING_COMMIT", message: expect.stringContaining(missing) as unknown });
  });
});

describe("reading one file at several revisions with one git process", () => {
  it("readBlobs answers as readBlob does for each revision, a missing file as null, from one process", async () => {
    const revs = [oids[0] as string, oids[2] as string, oids[3] as string];
    const one = await Promise.all([...revs.map((r) => readBlob(repo, r, "a.txt")), readBlob(repo, revs[0] as string, "b.txt")]);
    expect(one[3]).toBeNull();
    const { result, processes } = await countGitProcesses(() => readBlobs(repo, revs, "a.txt"));
    expect(result).toEqual(one.slice(0, 3));
    expect(processes).toBe(1);
    expect(await readBlobs(repo, [revs[0] as string, revs[1] as string], "b.txt")).toEqual([null, null]);
    expect(await readBlobs(repo, [revs[0] as string, oids[3] as string], "bin.dat")).toEqual([Buffer.from([0, 1, 2, 255]), Buffer.from([0, 1, 2, 255])]);
  });
});
