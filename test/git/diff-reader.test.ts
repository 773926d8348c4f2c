import { mkdirSync, writeFileSync } from "node:fs";
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

describe("a commit's patch and the attributes files", () => {
  it("reads none of a project's, a work tree's, an index's or the user's: the same patch as a bare clone's, and no process started again", async () => {
    const own = new Fixture();
    const home = new Fixture();
    const saved = { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
    try {
      const java = (n: number): string => `class A {\n  void f() {\n    int a = 1;\n    int b = 2;\n    int c = 3;\n    int d = 4;\n    int e = ${n};\n  }\n}\n`;
      own.commit("One", { "dir/f.txt": "1\n", "dir/A.java": java(1) });
      // The project's own attributes, committed: the text file binary, a Java driver for hunk headers.
      own.commit("Attributes", { ".gitattributes": "*.txt binary\n", "dir/.gitattributes": "*.java diff=java\n" });
      const line = [own.commit("Two", { "dir/f.txt": "2\n", "dir/A.java": java(2) }), own.commit("Three", { "dir/f.txt": "3\n", "dir/A.java": java(3) })];
      // The oracle: git in a bare clone, which reads no attributes of the tree.
      const bare = path.join(home.dir, "bare.git");
      own.git("clone", "-q", "--bare", own.dir, bare);
      const expected = line.map((oid) => own.git("--git-dir", bare, "diff-tree", "-p", "--root", "--no-commit-id", "--no-color", "--no-renames", oid));
      expect(expected[0]).toContain("+2");
      expect(expected[0]).toContain("@@ -4,6 +4,6 @@ class A {");
      const env = { GIT_DIR: path.join(own.dir, ".git"), GIT_WORK_TREE: own.dir };
      const handles = [await Repo.open(own.dir), Repo.own(own.dir, path.join(own.dir, ".git"), env, await gitVersion()).keepReader()];
      try {
        for (const repo of handles) {
          // A patch ends with the line git prints after the last hunk; the oracle's output was trimmed by the helper.
          expect((await commitDiff(repo, line[0] as string)).trimEnd()).toBe(expected[0]);
        }
        // What an agent or a user could add: a work tree's own file and the user's attributes file, each making every file binary.
        writeFileSync(path.join(own.dir, ".gitattributes"), "* -diff\n");
        mkdirSync(path.join(home.dir, "git"));
        writeFileSync(path.join(home.dir, "git", "attributes"), "* -diff\n");
        process.env.XDG_CONFIG_HOME = home.dir;
        for (const repo of handles) {
          const { result, processes } = await countGitProcesses(() => commitDiff(repo, line[1] as string));
          expect(result.trimEnd()).toBe(expected[1]);
          expect(processes).toBe(repo === handles[1] ? 0 : 1);
        }
      } finally {
        await Promise.all(handles.map((h) => h.close()));
      }
    } finally {
      if (saved.XDG_CONFIG_HOME === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = saved.XDG_CONFIG_HOME;
      own.remove();
      home.remove();
    }
  });
});
