import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CatFile } from "../../src/git/catfile.js";
import { commitsAfter, firstParentLine, readCommit, readCommits } from "../../src/git/commits.js";
import { patchBetween, patchEntries, patchWithEntries } from "../../src/git/diff.js";
import { headCommit } from "../../src/git/refs.js";
import { Repo } from "../../src/git/repo.js";
import { RepoPool } from "../../src/git/repo-pool.js";
import { differingFiles, readBlobs, treeEntries, treeOf } from "../../src/git/trees.js";
import { Fixture } from "../helpers/fixture.js";
import { countGitProcesses } from "../helpers/git-count.js";

let fx: Fixture;
let plain: Repo;
let kept: Repo;
const commits: Record<string, string> = {};

beforeAll(async () => {
  fx = new Fixture();
  commits.root = fx.commit("Root", { "a.txt": "one\n", "dir/b.txt": "b\n", "dir/deep/c.txt": "c\n" });
  // A message with leading blank lines, a subject over two lines with trailing blanks, in a zone west of UTC.
  const tree = fx.git("write-tree").trim();
  const odd = fx.git("commit-tree", tree, "-p", commits.root, "-m", "\n\n  first line  \nsecond line\t\n\nbody\n\n").trim();
  fx.git("reset", "-q", "--hard", odd);
  commits.odd = odd;
  fx.git("-c", "i18n.commitEncoding=ISO-8859-1", "commit", "-q", "--allow-empty", "-m", "latin");
  commits.latin = fx.head();
  commits.files = fx.commit("Files", {
    "a.txt": "one\ntwo\n",
    "dir/deep/c.txt": "changed\n",
    "sp ace.txt": "s\n",
    "tab\tname.txt": "t\n",
    "café.txt": "é\n",
    "bin.dat": Buffer.from([0, 1, 2, 255]) as unknown as string,
  });
  fx.checkout("side", true);
  commits.side = fx.commit("Side", { "s.txt": "s\n" });
  fx.checkout("main");
  commits.merge = fx.merge("side");
  commits.after = fx.commit("After the merge", { "a.txt": "three\n" });
  plain = await Repo.open(fx.dir);
  kept = (await Repo.open(fx.dir)).keepReader();
});
afterAll(async () => {
  await kept.close();
  fx.remove();
});

describe("a repository's long-lived reader", () => {
  it("answers commits, trees, blobs, kinds and HEAD as the one-shot commands do, from one process", async () => {
    const all = Object.values(commits);
    const expected = {
      commits: await readCommits(plain, all),
      one: await readCommit(plain, commits.odd as string),
      head: await headCommit(plain),
      tree: await treeOf(plain, "HEAD~1"),
      blobs: await readBlobs(plain, [commits.root as string, commits.files as string, "nope"], "dir/deep/c.txt"),
    };
    const { result, processes, commands } = await countGitProcesses(async () => ({
      commits: await readCommits(kept, all),
      one: await readCommit(kept, commits.odd as string),
      head: await headCommit(kept),
      tree: await treeOf(kept, "HEAD~1"),
      blobs: await readBlobs(kept, [commits.root as string, commits.files as string, "nope"], "dir/deep/c.txt"),
    }));
    expect(result).toEqual(expected);
    expect(result.one.subject).toBe("  first line second line");
    // The reader, and one `git show` for the commit in another encoding (git re-encodes its message).
    expect(processes, commands.join("\n")).toBeLessThanOrEqual(2);
    expect(commands.filter((c) => c.startsWith("show ")), commands.join("\n")).toHaveLength(commands.length - 1);
  });

  it("walks first-parent lines and the commits after a base as rev-list does, and leaves a merge to rev-list", async () => {
    for (const [tip, n] of [[commits.files, 4], [commits.after, 3], [commits.merge, 6]] as const) {
      expect(await firstParentLine(kept, tip as string, n)).toEqual(await firstParentLine(plain, tip as string, n));
    }
    expect(await commitsAfter(kept, commits.merge as string)).toEqual([commits.after]);
    // Across the merge the walk gives up and git answers: the side's commit is listed too.
    const across = await commitsAfter(kept, commits.files as string);
    expect(across).toEqual(await commitsAfter(plain, commits.files as string));
    expect(across).toContain(commits.side);
  });

  it("sees refs moved and commits made after it started", async () => {
    const repo = (await Repo.open(fx.dir)).keepReader();
    try {
      expect(await headCommit(repo)).toBe(commits.after);
      fx.git("checkout", "-q", "-b", "later");
      const later = fx.commit("Later", { "later.txt": "l\n" });
      expect(await headCommit(repo)).toBe(later);
      expect((await readCommit(repo, later)).subject).toBe("Later");
      fx.git("checkout", "-q", "main");
      expect(await headCommit(repo)).toBe(commits.after);
    } finally {
      await repo.close();
    }
  });

  it("finds the files where two trees differ, as a comparison of their full listings does", async () => {
    for (const [a, b] of [[commits.root, commits.files], [commits.files, commits.after], [commits.after, commits.after]] as const) {
      const ta = await treeOf(plain, a as string);
      const tb = await treeOf(plain, b as string);
      const [la, lb] = [await treeEntries(plain, ta), await treeEntries(plain, tb)];
      const differs = (x: Map<string, { mode: string; oid: string }>, y: typeof x) =>
        new Map([...x].filter(([p, e]) => y.get(p)?.oid !== e.oid || y.get(p)?.mode !== e.mode));
      const got = await differingFiles({ repo: kept, tree: ta }, { repo: kept, tree: tb });
      expect(got).toEqual({ a: differs(la, lb), b: differs(lb, la) });
    }
    expect(await differingFiles({ repo: plain, tree: "x" }, { repo: kept, tree: "y" })).toBeNull();
  });
});

describe("CatFile", () => {
  it("answers info without the bytes, and null for missing names, a name holding a line break among them", async () => {
    const cat = new CatFile(fx.dir);
    try {
      const [info, missing, broken, blob, nul] = await Promise.all([
        cat.info(`${commits.files as string}:bin.dat`),
        cat.info("no-such-ref"),
        cat.read(`${commits.files as string}:no\nsuch`),
        cat.read(`${commits.files as string}:tab\tname.txt`),
        cat.read("a\0b"),
      ]);
      expect(info).toMatchObject({ type: "blob", size: 4 });
      expect(missing).toBeNull();
      expect(broken).toBeNull();
      expect(blob?.content.toString()).toBe("t\n");
      expect(nul).toBeNull();
    } finally {
      await cat.close();
    }
  });

  it("does not keep Node running while idle, so a handle nobody closes does not hang the process", () => {
    const dist = path.resolve("dist/git/repo.js");
    if (!existsSync(dist)) throw new Error("run `npm run build` first: this test loads dist/");
    const script = `import { Repo } from ${JSON.stringify(dist)}; import { headCommit } from ${JSON.stringify(path.resolve("dist/git/refs.js"))};
      const repo = (await Repo.open(${JSON.stringify(fx.dir)})).keepReader(); console.log(await headCommit(repo));`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 30_000 });
    expect(r.signal).toBeNull();
    expect(r.stdout.trim()).toBe(commits.after);
  });
});

describe("RepoPool", () => {
  it("opens each repository once, and its handles answer through one reader until closed", async () => {
    const pool = new RepoPool();
    const { result, processes } = await countGitProcesses(async () => {
      const [a, b] = await Promise.all([pool.get(fx.dir), pool.get(path.join(fx.dir, "."))]);
      await readCommits(a, [commits.root as string, commits.files as string]);
      await treeOf(b, "HEAD");
      return a === b;
    });
    expect(result).toBe(true);
    // The probe, the config read and the reader.
    expect(processes).toBe(3);
    await pool.close();
  });
});

describe("a patch and its file list from one process", () => {
  it("patchWithEntries gives patchEntries and patchBetween byte for byte (odd names, a binary file, nothing at all)", async () => {
    for (const [from, to] of [[commits.root, commits.files], [commits.files, commits.after], [commits.after, commits.after]] as const) {
      const expected = { entries: await patchEntries(plain, from as string, to as string), patch: await patchBetween(plain, from as string, to as string) };
      const { result, processes } = await countGitProcesses(() => patchWithEntries(plain, from as string, to as string));
      expect(result).toEqual(expected);
      expect(processes).toBe(1);
    }
  });
});
