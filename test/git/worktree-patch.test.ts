import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { worktreePatch } from "../../src/git/apply.js";
import { freshIndexEntries } from "../../src/git/index-file.js";
import { fixtureEnv, useFixtures, type Fixture } from "../helpers/fixture.js";
import { countGitProcesses } from "../helpers/git-count.js";

const fixture = useFixtures();

/** Writes a file of the work tree `wt` (its directories made), as bytes. */
function put(wt: string, file: string | Buffer, content: string | Buffer): void {
  const full = typeof file === "string" ? path.join(wt, file) : Buffer.concat([Buffer.from(`${wt}/`), file]);
  mkdirSync(path.dirname(full.toString()), { recursive: true });
  writeFileSync(full, content);
}

/** Runs git in `cwd` with the fixtures' environment. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: fixtureEnv(), encoding: "utf8" }).trim();
}

/** The patch of `wt` against `base` made both ways (`read-tree`, then the entries of the index `wt`'s checkout wrote), with the git processes each started. */
async function bothWays(f: Fixture, wt: string, base: string): Promise<{ viaGit: string; fromIndex: string; gitProcesses: number; fromIndexProcesses: number }> {
  const gitDir = path.join(f.dir, ".git");
  const entries = freshIndexEntries(gitDir, path.join(gitDir, "worktrees", path.basename(wt), "index"));
  expect(entries).not.toBeNull();
  const objects = path.join(gitDir, "objects");
  const a = await countGitProcesses(() => worktreePatch(wt, objects, base, f.scratch("diff-a.git"), gitDir));
  const b = await countGitProcesses(() => worktreePatch(wt, objects, base, f.scratch("diff-b.git"), gitDir, entries));
  return { viaGit: a.result, fromIndex: b.result, gitProcesses: a.processes, fromIndexProcesses: b.processes };
}

describe("worktreePatch from the entries of the index a checkout of the base wrote", () => {
  it("gives the patch read-tree gives on a hostile work tree, in two git processes instead of three", async () => {
    const f = fixture();
    f.write({
      ".gitignore": "*.log\nbuild/\n",
      "src/app.py": "print(1)\n",
      "src/keep.py": "keep\n",
      "run.sh": "#!/bin/sh\necho hi\n",
      "data/blob.bin": Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
      "-rf": "named like an option\n",
      "--output=x": "named like an option too\n",
      "é.txt": "accent\n",
      "dir/file": "becomes a link\n",
      a: "becomes a directory\n",
      "old-link-target": "t\n",
      "debug.log": "tracked though ignored\n",
      "build/out.txt": "tracked though ignored\n",
    });
    chmodSync(path.join(f.dir, "run.sh"), 0o755);
    symlinkSync("src/app.py", path.join(f.dir, "link"));
    symlinkSync("nowhere", path.join(f.dir, "link2"));
    f.git("add", "-A");
    f.git("add", "-f", "debug.log", "build/out.txt");
    f.git("commit", "-q", "-m", "first");
    const first = f.head();
    // A submodule's commit in the tree, with no repository behind it.
    f.git("update-index", "--add", "--cacheinfo", `160000,${first},sub`);
    f.git("commit", "-q", "-m", "base");
    const base = f.head();

    const wt = f.scratch("wt");
    f.git("worktree", "add", "-q", "--detach", wt, base);
    // What an agent leaves: ignored-but-tracked files changed and deleted, ignored new files, files named like
    // options, mode changes both ways, links retargeted and replaced both ways, binary files, a deletion, a
    // file that became a directory, a nested repository, a name that is not UTF-8.
    put(wt, "debug.log", "changed though ignored\n");
    unlinkSync(path.join(wt, "build", "out.txt"));
    put(wt, "new.log", "ignored, not in the patch\n");
    put(wt, "build/new.txt", "ignored, not in the patch\n");
    put(wt, "-rf", "changed\n");
    put(wt, "--cached", "new, named like an option\n");
    put(wt, "-n", "new\n");
    chmodSync(path.join(wt, "run.sh"), 0o644);
    chmodSync(path.join(wt, "src", "keep.py"), 0o755);
    unlinkSync(path.join(wt, "link"));
    symlinkSync("src/keep.py", path.join(wt, "link"));
    unlinkSync(path.join(wt, "link2"));
    put(wt, "link2", "a file now\n");
    unlinkSync(path.join(wt, "dir", "file"));
    symlinkSync("../old-link-target", path.join(wt, "dir", "file"));
    put(wt, "data/blob.bin", Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i)));
    put(wt, "new.bin", Buffer.from([0, 1, 2, 0, 255]));
    unlinkSync(path.join(wt, "src", "app.py"));
    unlinkSync(path.join(wt, "a"));
    put(wt, "a/b", "inside\n");
    put(wt, "vendor/lib/code.py", "nested\n");
    git(path.join(wt, "vendor", "lib"), "init", "-q");
    git(path.join(wt, "vendor", "lib"), "add", "-A");
    git(path.join(wt, "vendor", "lib"), "-c", "user.name=n", "-c", "user.email=e@x", "commit", "-q", "-m", "nested");
    put(wt, Buffer.from([0x6e, 0xff, 0x2e, 0x74, 0x78, 0x74]), "a name that is not UTF-8\n");

    const r = await bothWays(f, wt, base);
    expect(r.fromIndex).toBe(r.viaGit);
    expect(r.gitProcesses).toBe(3);
    expect(r.fromIndexProcesses).toBe(2);
    // The patch is the hostile one: it holds what the agent changed and nothing ignored that git did not track.
    for (const part of ["a/debug.log", "deleted file mode 100644\nindex", "a/-rf", "b/--cached", "old mode 100755\nnew mode 100644", "GIT binary patch", "b/a/b", "new file mode 160000", "deleted file mode 120000"]) {
      expect(r.fromIndex).toContain(part);
    }
    expect(r.fromIndex).not.toContain("new.log");
    expect(r.fromIndex).not.toContain("build/new.txt");
  }, 60_000);

  it("takes no index with more than plain entries: an intent-to-add entry, a conflict", () => {
    const f = fixture();
    f.commit("one", { "a.txt": "a\n" });
    const gitDir = path.join(f.dir, ".git");
    expect(freshIndexEntries(gitDir)?.map((e) => [e.path, e.mode, e.stat.readUInt32BE(24), e.stat.subarray(0, 24).every((b) => b === 0)])).toEqual([["a.txt", "100644", 0o100644, true]]);
    put(f.dir, "b.txt", "b\n");
    f.git("add", "-N", "b.txt");
    expect(freshIndexEntries(gitDir)).toBeNull();
    f.git("reset", "-q");
    f.git("checkout", "-q", "-b", "side");
    f.commit("side", { "a.txt": "side\n" });
    f.git("checkout", "-q", "main");
    f.commit("main", { "a.txt": "main\n" });
    expect(f.tryGit("merge", "-q", "side").code).not.toBe(0);
    expect(freshIndexEntries(gitDir)).toBeNull();
  });
});

describe("worktreePatch of a work tree holding a repository with no commit", () => {
  it("leaves untracked folders holding a repository out of the patch instead of failing, and keeps tracked folders' changes", async () => {
    const f = fixture();
    f.commit("base", { "src/app.py": "print(1)\n", "README": "r\n" });
    const base = f.head();
    const objects = path.join(f.dir, ".git", "objects");
    const agentTree = (wt: string, withRepos: boolean): void => {
      f.git("worktree", "add", "-q", "--detach", wt, base);
      put(wt, "src/app.py", "print(2)\n");
      put(wt, "pkg/new.py", "new\n");
      if (!withRepos) return;
      // A `git init` in a new folder (no commit: git refuses the whole work tree), one in a folder whose name is
      // not UTF-8 with a commit, and one in a tracked folder (git walks into it as the repository's own).
      put(wt, "scratch/notes.txt", "agent's own repository\n");
      git(path.join(wt, "scratch"), "init", "-q");
      const odd = Buffer.concat([Buffer.from(`${wt}/`), Buffer.from([0x76, 0xff])]);
      mkdirSync(odd);
      writeFileSync(Buffer.concat([odd, Buffer.from("/lib.py")]), "vendored\n");
      execFileSync("sh", ["-c", 'cd "$(printf "v\\377")" && git init -q && git add -A && git -c user.name=n -c user.email=e@x commit -q -m v'], { cwd: wt, env: fixtureEnv() });
      git(path.join(wt, "src"), "init", "-q");
    };
    const clean = f.scratch("clean");
    agentTree(clean, false);
    const hostile = f.scratch("hostile");
    agentTree(hostile, true);
    const expected = await worktreePatch(clean, objects, base, f.scratch("diff-clean.git"), path.join(f.dir, ".git"));
    const patch = await worktreePatch(hostile, objects, base, f.scratch("diff-hostile.git"), path.join(f.dir, ".git"));
    expect(patch).toContain("b/src/app.py");
    expect(patch).toContain("b/pkg/new.py");
    expect(patch).toBe(expected);
  }, 60_000);
});
