import { describe, expect, it } from "vitest";
import { GitGoodError } from "../../src/errors.js";
import { CatFile } from "../../src/git/catfile.js";
import { listBranches, readCommitGraph } from "../../src/git/history.js";
import { Remerger } from "../../src/git/mergetree.js";
import { streamGit } from "../../src/git/process.js";
import { Repo } from "../../src/git/repo.js";
import { diffBatches, MissingTrees, type FileChange } from "../../src/git/treediff.js";
import { atLeast, parseGitVersion } from "../../src/git/version.js";
import { useFixtures } from "../helpers/fixture.js";

const fixture = useFixtures();

describe("git version", () => {
  it("parses versions and compares them", () => {
    const v = parseGitVersion("git version 2.39.5\n");
    expect(v).toMatchObject({ major: 2, minor: 39, patch: 5 });
    expect(atLeast(v!, 2, 38)).toBe(true);
    expect(atLeast(v!, 2, 40)).toBe(false);
    expect(parseGitVersion("git version 2.45.windows.1")).toMatchObject({ major: 2, minor: 45 });
    expect(parseGitVersion("nonsense")).toBeNull();
  });
});

describe("CatFile", () => {
  it("reads blobs by name and answers null for missing objects without stopping", async () => {
    const f = fixture();
    const bin = Buffer.from([0, 10, 255, 13, 10]);
    f.commit("c", { "a.txt": "hello\n", "b.bin": bin });
    const cat = new CatFile(f.dir);
    try {
      const [a, missing, b, bad] = await Promise.all([
        cat.read("HEAD:a.txt"),
        cat.read("0123456789012345678901234567890123456789"),
        cat.read("HEAD:b.bin"),
        cat.read("HEAD:nope"),
      ]);
      expect(a?.content.toString()).toBe("hello\n");
      expect(a?.type).toBe("blob");
      expect(missing).toBeNull();
      expect(b?.content.equals(bin)).toBe(true);
      expect(bad).toBeNull();
      expect(await cat.read("line\nbreak")).toBeNull();
      const big = "x".repeat(3_000_000);
      f.commit("big", { "big.txt": big });
      expect((await cat.read("HEAD:big.txt"))?.content.length).toBe(big.length);
    } finally {
      await cat.close();
    }
  });
});

describe("streaming", () => {
  it("splits on NUL and reports git's failure as one GIT_FAILED error", async () => {
    const f = fixture();
    f.commit("one", { "x y.txt": "1\n", "ü.txt": "2\n" });
    const names: string[] = [];
    for await (const t of streamGit(["ls-tree", "-z", "--name-only", "HEAD"], { cwd: f.dir })) names.push(t);
    expect(names).toEqual(["x y.txt", "ü.txt"]);
    const failing = (async () => {
      for await (const _ of streamGit(["log", "no-such-rev"], { cwd: f.dir }));
    })();
    await expect(failing).rejects.toMatchObject({ code: "GIT_FAILED" });
    await expect(failing).rejects.toBeInstanceOf(GitGoodError);
  });
});

describe("history", () => {
  it("lists branches without symbolic refs or tags, reads the graph and diffs commits (binary files count no lines)", async () => {
    const f = fixture();
    const c1 = f.commit("one", { "a.py": "1\n", "img.bin": Buffer.from([0, 1]) });
    const c2 = f.commit("two", { "a.py": "1\n2\n", "img.bin": Buffer.from([0, 2]), "gone.txt": "g\n" });
    const c3 = f.commit("three", { "gone.txt": null });
    f.git("update-ref", "refs/remotes/origin/main", c2);
    f.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main");
    f.git("tag", "v1", c1);
    const repo = await Repo.open(f.dir);
    const branches = await listBranches(repo);
    expect(branches.map((b) => [b.ref, b.name, b.oid])).toEqual([
      ["refs/heads/main", "main", c3],
      ["refs/remotes/origin/main", "origin/main", c2],
    ]);
    const graph = await readCommitGraph(repo, [c3]);
    expect(graph.get(c3)?.parents).toEqual([c2]);
    expect(graph.get(c1)?.parents).toEqual([]);
    // Mining reads a commit's diff twice: trees only, then line counts. A binary file counts 0 lines
    // (its numstat says "-"), which is what a chain's purity takes it for; its blobs are still named.
    const diffs = async (numstat: boolean) => {
      const out = new Map<string, Pick<FileChange, "path" | "status" | "lines" | "oldOid" | "newOid">[]>();
      const missing = new MissingTrees(repo);
      try {
        for await (const batch of diffBatches(repo, [c1, c2, c3], { jobs: 2, numstat, missing })) {
          for (const d of batch) out.set(d.commit, d.files.map(({ path, status, lines, oldOid, newOid }) => ({ path, status, lines, oldOid, newOid })));
        }
      } finally {
        missing.close();
      }
      return out;
    };
    const blob = (commit: string, file: string) => f.git("rev-parse", `${commit}:${file}`).trim();
    const zero = "0".repeat(40);
    const [a1, a2, img1, img2, gone] = [blob(c1, "a.py"), blob(c2, "a.py"), blob(c1, "img.bin"), blob(c2, "img.bin"), blob(c2, "gone.txt")];
    const counted = await diffs(true);
    expect(counted.get(c1)).toEqual([
      { path: "a.py", status: "A", lines: 1, oldOid: zero, newOid: a1 },
      { path: "img.bin", status: "A", lines: 0, oldOid: zero, newOid: img1 },
    ]);
    expect(counted.get(c2)).toEqual([
      { path: "a.py", status: "M", lines: 1, oldOid: a1, newOid: a2 },
      { path: "gone.txt", status: "A", lines: 1, oldOid: zero, newOid: gone },
      { path: "img.bin", status: "M", lines: 0, oldOid: img1, newOid: img2 },
    ]);
    expect(counted.get(c3)).toEqual([{ path: "gone.txt", status: "D", lines: 1, oldOid: gone, newOid: zero }]);
    // Trees only: the same files, no line counted.
    const trees = await diffs(false);
    expect([...trees.keys()].sort()).toEqual([c1, c2, c3].sort());
    for (const [commit, files] of trees) expect(files).toEqual(counted.get(commit)!.map((x) => ({ ...x, lines: 0 })));
  });
});

describe("Remerger", () => {
  it("re-merges without writing to the repository's object store", async () => {
    const f = fixture();
    f.commit("base", { "a.py": "1\n2\n3\n" });
    f.checkout("side", true);
    const side = f.commit("side", { "a.py": "1\nS\n3\n" });
    f.checkout("main");
    const main = f.commit("main", { "a.py": "1\nM\n3\n" });
    const objectsBefore = f.git("count-objects", "-v");
    const repo = await Repo.open(f.dir);
    const remerger = new Remerger(repo, 2);
    try {
      const outcomes = [];
      for await (const o of remerger.remergeAll([{ commit: "x", parents: [main, side] }])) outcomes.push(o);
      expect(outcomes).toHaveLength(1);
      const o = outcomes[0]!;
      expect(o.ok && o.clean).toBe(false);
      expect(o.ok && o.conflicted).toEqual(["a.py"]);
      const blob = o.ok ? await remerger.objects().read(`${o.tree}:a.py`) : null;
      expect(blob?.content.toString()).toMatch(/^1\n<<<<<<< [0-9a-f]+\nM\n=======\nS\n>>>>>>> [0-9a-f]+\n3\n$/);
    } finally {
      await remerger.close();
    }
    expect(f.git("count-objects", "-v")).toBe(objectsBefore);
  });
});

describe("remergeReports", () => {
  it("agrees with merge-tree on conflicted files and marker regions, quoted paths and CRLF included", async () => {
    const f = fixture();
    const names = ['we"ird\tname.py', "crlf.py", "plain space.py", "gone.py"];
    const body = (tag: string, eol = "\n") => Array.from({ length: 30 }, (_, i) => `${tag}${i}${eol}`).join("");
    f.commit("base", { [names[0]!]: body("q"), [names[1]!]: body("c", "\r\n"), [names[2]!]: body("p"), [names[3]!]: "x\n" });
    f.checkout("side", true);
    const sideEdit = (t: string, eol = "\n") => body(t, eol).replace(new RegExp(`^${t}3`, "m"), "SIDE").replace(new RegExp(`^${t}20`, "m"), "SIDE20");
    f.commit("side", { [names[0]!]: sideEdit("q"), [names[1]!]: sideEdit("c", "\r\n"), [names[2]!]: sideEdit("p"), [names[3]!]: null });
    f.checkout("main");
    const mainEdit = (t: string, eol = "\n") => body(t, eol).replace(new RegExp(`^${t}3`, "m"), "MAIN").replace(new RegExp(`^${t}20`, "m"), "MAIN20");
    f.commit("main", { [names[0]!]: mainEdit("q"), [names[1]!]: mainEdit("c", "\r\n"), [names[2]!]: mainEdit("p"), [names[3]!]: "y\n" });
    const merge = f.merge("side", { [names[0]!]: "r\n", [names[1]!]: "r\r\n", [names[2]!]: "r\n", [names[3]!]: "kept\n" });
    const repo = await Repo.open(f.dir);
    const { remergeReports } = await import("../../src/git/remergediff.js");
    const reports = [];
    for await (const r of remergeReports(repo, [merge], 1)) reports.push(r);
    expect(reports).toHaveLength(1);
    const fromLog = Object.fromEntries(reports[0]!.conflicts);

    const remerger = new Remerger(repo, 1);
    const fromTree: Record<string, number> = {};
    try {
      const { findRegions } = await import("../../src/git/markers.js");
      const parents = f.git("rev-list", "--parents", "-1", merge).split(" ").slice(1) as [string, string];
      for await (const o of remerger.remergeAll([{ commit: merge, parents }])) {
        if (!o.ok) throw new Error(o.error);
        for (const p of o.conflicted) {
          const blob = await remerger.objects().read(`${o.tree}:${p}`);
          fromTree[p] = blob ? findRegions(blob.content).length : 0;
        }
      }
    } finally {
      await remerger.close();
    }
    expect(fromLog).toEqual(fromTree);
    expect(fromLog).toEqual({ [names[0]!]: 2, [names[1]!]: 2, [names[2]!]: 2, [names[3]!]: 0 });
  });

  it("reads quoted and plain diff headers", async () => {
    const { headerPath, unquotePath } = await import("../../src/git/remergediff.js");
    expect(headerPath("diff --git a/x y.py b/x y.py")).toBe("x y.py");
    expect(headerPath('diff --git "a/t\\tq\\".py" "b/t\\tq\\".py"')).toBe('t\tq".py');
    expect(headerPath('diff --git "a/\\303\\274.py" "b/\\303\\274.py"')).toBe("ü.py");
    expect(headerPath("diff --git a/odd b/other")).toBeNull();
    expect(unquotePath("plain", 0)).toBeNull();
  });
});
