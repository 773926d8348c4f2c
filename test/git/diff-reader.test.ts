import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitDiff, commitDiffs } from "../../src/git/diff.js";
import { DiffTreeReader } from "../../src/git/diff-reader.js";
import { Repo } from "../../src/git/repo.js";
import { gitVersion } from "../../src/git/version.js";
import { Fixture } from "../helpers/fixture.js";
import { countGitProcesses } from "../helpers/git-count.js";

let fx: Fixture;
const commits: string[] = [];

beforeAll(() => {
  fx = new Fixture();
  commits.push(fx.commit("Root", { "a.txt": "one\n", "dir/b.txt": "b\n" }));
  commits.push(
    fx.commit("Odd names and bytes", {
      "a.txt": "one\ntwo\n",
      "new\nline.txt": "n\n",
      "caf\u00e9.txt": "\u00e9\n",
      "bin.dat": Buffer.from([0, 1, 2, 255]) as unknown as string,
      // A line that reads like the end line the long-lived process is asked to print back.
      "end.txt": "gitgood: end of answer\n",
    }),
  );
  fx.git("commit", "-q", "--allow-empty", "-m", "Empty");
  commits.push(fx.head());
  commits.push(fx.commit("Last", { "dir/b.txt": "gitgood: end of answer\nb\n" }));
});
afterAll(() => fx.remove());

/** The patches a handle without long-lived processes reads, each commit with a process of its own. */
async function oneShot(): Promise<string[]> {
  const plain = await Repo.open(fx.dir);
  return Promise.all(commits.map((c) => commitDiff(plain, c)));
}

/** The handle's long-lived diff-tree (started by the first patch asked). */
function keptDiffTree(repo: Repo): DiffTreeReader {
  const reader = repo.helper("diff-tree", (): DiffTreeReader => {
    throw new Error("no diff-tree was started");
  });
  if (!reader) throw new Error("the handle keeps no processes");
  return reader;
}

describe("a repository handle's long-lived diff-tree", () => {
  it("gives the one-shot patches byte for byte, every question after the first with no process", async () => {
    const expected = await oneShot();
    const kept = (await Repo.open(fx.dir)).keepReader();
    try {
      const first = await countGitProcesses(() => commitDiffs(kept, commits.slice(0, 2)));
      expect(first.result).toEqual(expected.slice(0, 2));
      expect(first.commands.filter((c) => c.startsWith("diff-tree"))).toHaveLength(1);
      const later = await countGitProcesses(async () => [await commitDiffs(kept, commits.slice(2)), await commitDiff(kept, commits[1] as string)]);
      expect(later.result).toEqual([expected.slice(2), expected[1]]);
      expect(later.processes, later.commands.join("\n")).toBe(0);
    } finally {
      await kept.close();
    }
  });

  it("falls back to a process of its own when the long-lived one dies, and fails as git does on a commit it lacks", async () => {
    const expected = await oneShot();
    const kept = (await Repo.open(fx.dir)).keepReader();
    try {
      await commitDiffs(kept, [commits[0] as string]);
      const reader = keptDiffTree(kept);
      // Asked while it dies: the question fails with the process, and is asked again of a process of its own.
      process.kill(reader.pid as number, "SIGKILL");
      expect(await commitDiffs(kept, commits.slice(1))).toEqual(expected.slice(1));
      expect(reader.failed).toBe(true);
      await expect(reader.ask([commits[1] as string])).rejects.toThrow(/diff-tree stopped/);
      await expect(commitDiffs(kept, ["0".repeat(40)])).rejects.toThrow(/bad object|fatal|failed/);
    } finally {
      await kept.close();
    }
  });

  it("asks nothing of a process that is closed with its handle, and answers again one-shot afterwards", async () => {
    const expected = await oneShot();
    const kept = (await Repo.open(fx.dir)).keepReader();
    await commitDiffs(kept, [commits[3] as string]);
    const reader = keptDiffTree(kept);
    await kept.close();
    await expect(reader.ask([commits[0] as string])).rejects.toThrow(/closed/);
    const after = await countGitProcesses(() => commitDiffs(kept, [commits[2] as string]));
    expect(after.result).toEqual([expected[2]]);
    expect(after.commands).toEqual([expect.stringMatching(/^diff-tree --stdin/)]);
  });
});

describe("a sandbox's long-lived diff-tree and the attributes files", () => {
  it("starts again when the work tree's or the index's attributes files change, as a process per question would read them", async () => {
    const own = new Fixture();
    try {
      const line = [own.commit("One", { "dir/f.txt": "1\n" }), own.commit("Two", { "dir/f.txt": "2\n" }), own.commit("Three", { "dir/f.txt": "3\n" }), own.commit("Four", { "dir/f.txt": "4\n" })];
      const env = { GIT_DIR: path.join(own.dir, ".git"), GIT_WORK_TREE: own.dir };
      const sandboxLike = Repo.own(own.dir, path.join(own.dir, ".git"), env, await gitVersion()).keepReader();
      try {
        const asked = async (oid: string): Promise<{ patch: string; processes: number; expected: string }> => {
          const { result, processes } = await countGitProcesses(() => commitDiff(sandboxLike, oid));
          return { patch: result, processes, expected: await commitDiff(await Repo.open(own.dir), oid) };
        };
        expect((await asked(line[0] as string)).patch).toContain("+1");
        // An attributes file written at the top of the work tree: the next patch reads it, from a new process.
        writeFileSync(path.join(own.dir, ".gitattributes"), "*.txt binary\n");
        const second = await asked(line[1] as string);
        expect(second.patch).toBe(second.expected);
        expect(second.patch).toContain("Binary files");
        expect(second.processes).toBe(1);
        // Nothing changed since: the same process answers.
        const third = await asked(line[2] as string);
        expect(third).toMatchObject({ patch: third.expected, processes: 0 });
        // One in a folder, committed (the index lists it), taking the top one's effect back there.
        own.commit("Attributes", { "dir/.gitattributes": "*.txt -binary diff\n" });
        const fourth = await asked(line[3] as string);
        expect(fourth.patch).toBe(fourth.expected);
        expect(fourth.patch).toContain("+4");
        expect(fourth.processes).toBe(1);
      } finally {
        await sandboxLike.close();
      }
    } finally {
      own.remove();
    }
  });
});
