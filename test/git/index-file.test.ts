import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { blobId, readIndexFile, type IndexEntry } from "../../src/git/index-file.js";
import { openOwnRepo } from "../../src/git/own-git-dir.js";
import { Repo } from "../../src/git/repo.js";
import { unmergedEntries } from "../../src/git/worktree.js";
import { Fixture } from "../helpers/fixture.js";
import { countGitProcesses } from "../helpers/git-count.js";

const f = new Fixture();
f.commit("base", { "a.py": "a\n", "pkg/b.py": "b\n", "pkg/deep/conftest.py": "x = 1\n", "pkg/deep/longer-name-than-the-rest.txt": "t\n", "side.py": "1\n" });
f.git("update-index", "--chmod=+x", "a.py");
symlinkSync("a.py", path.join(f.dir, "link"));
f.git("add", "link");
f.commit("exec and link");

afterAll(() => f.remove());

/** The entries as `git ls-files -s` gives them: the oracle. */
function gitEntries(): IndexEntry[] {
  return f
    .git("ls-files", "-s", "-z")
    .split("\0")
    .filter((l) => l !== "")
    .map((l) => {
      const [meta, file] = l.split("\t") as [string, string];
      const [mode, oid, stage] = meta.split(" ") as [string, string, string];
      return { path: file, name: Buffer.from(file, "utf8"), mode, oid, stage: Number(stage) };
    });
}

describe("reading the index without git", () => {
  for (const version of [2, 3, 4]) {
    it(`index version ${version}: every entry as git ls-files -s has it (an intent-to-add entry's extended flags in 3 and 4)`, () => {
      writeFileSync(path.join(f.dir, "new.py"), "n\n");
      if (version > 2) f.git("add", "-N", "new.py");
      f.git("update-index", `--index-version=${version}`);
      expect(readIndexFile(path.join(f.dir, ".git"))).toEqual(gitEntries());
      f.git("rm", "-q", "--cached", "--ignore-unmatch", "new.py");
    });
  }

  it("a conflicted index: each side at its stage", () => {
    f.git("update-index", "--index-version=2");
    const base = f.head();
    f.checkout("other", true);
    f.commit("theirs", { "side.py": "theirs\n" });
    f.checkout("main");
    f.commit("ours", { "side.py": "ours\n" });
    expect(f.tryGit("merge", "-q", "other").code).not.toBe(0);
    const entries = readIndexFile(path.join(f.dir, ".git"));
    expect(entries).toEqual(gitEntries());
    expect(entries?.filter((e) => e.path === "side.py").map((e) => e.stage)).toEqual([1, 2, 3]);
    f.git("merge", "--abort");
    f.git("reset", "-q", "--hard", base);
  });

  it("the unmerged entries of gitgood's own git directory are read without git, as git ls-files -u gives them (a name that is not UTF-8 too)", async () => {
    f.git("update-index", "--index-version=2");
    const base = f.head();
    const odd = Buffer.from([0x6f, 0xe9, 0x2e, 0x70, 0x79]).toString("latin1");
    f.checkout("odd", true);
    f.commit("theirs", { "side.py": "theirs\n", "pkg/b.py": "B\n" });
    f.checkout("main");
    f.commit("ours", { "side.py": "ours\n", "pkg/b.py": "bb\n" });
    expect(f.tryGit("merge", "-q", "odd").code).not.toBe(0);
    // A file whose name is the bytes 6f e9 2e 70 79 (not UTF-8), added to the index at stages 2 and 3 by hand.
    const blobFile = path.join(f.scratch("odd"), "content");
    writeFileSync(blobFile, "odd\n");
    const blob = f.git("hash-object", "-w", blobFile);
    const name = Buffer.from(odd, "latin1");
    const listing = Buffer.concat([Buffer.from(`100644 ${blob} 2\t`), name, Buffer.from([0]), Buffer.from(`100644 ${blob} 3\t`), name, Buffer.from([0])]);
    const plain = await Repo.open(f.dir);
    await plain.run(["update-index", "-z", "--index-info"], { input: listing });
    const byGit = await unmergedEntries(plain);
    const own = await openOwnRepo(f.dir, path.join(f.dir, ".git"), {});
    const { result, processes } = await countGitProcesses(() => unmergedEntries(own));
    expect(processes).toBe(0);
    expect(result).toEqual(byGit);
    expect(result.map((e) => e.path.toString("latin1"))).toEqual(["pkg/b.py", "side.py", odd].sort());
    f.git("reset", "-q", "--hard", base);
    f.git("branch", "-q", "-D", "odd");
  });

  it("a split index (most entries in a shared file) is null: the file alone is not the list", () => {
    const gitDir = path.join(f.dir, ".git");
    f.git("update-index", "--split-index");
    try {
      writeFileSync(path.join(f.dir, "more.py"), "m\n");
      f.git("add", "more.py");
      expect(readIndexFile(gitDir)).toBeNull();
    } finally {
      f.git("rm", "-q", "--cached", "more.py");
      f.git("update-index", "--no-split-index");
    }
    expect(readIndexFile(gitDir)).toEqual(gitEntries());
  });

  it("a damaged or missing index is null (the caller asks git), never a wrong list", () => {
    const gitDir = path.join(f.dir, ".git");
    const bytes = readFileSync(path.join(gitDir, "index"));
    const damaged = Buffer.from(bytes);
    damaged[40] = (damaged[40] ?? 0) ^ 0xff;
    const dir = f.scratch("damaged");
    const file = path.join(dir, "index");
    writeFileSync(file, damaged);
    expect(readIndexFile(gitDir, file)).toBeNull();
    expect(readIndexFile(gitDir, path.join(dir, "nothing-here"))).toBeNull();
  });

  it("blobId is the id git gives the bytes", () => {
    const bytes = Buffer.from("some bytes\0and more\n");
    const file = path.join(f.scratch("blob"), "bytes");
    writeFileSync(file, bytes);
    expect(blobId(bytes, "0".repeat(40))).toBe(f.git("hash-object", file));
  });
});
