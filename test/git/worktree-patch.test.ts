import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { worktreePatch } from "../../src/git/apply.js";
import { Repo } from "../../src/git/repo.js";
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

/** The patch of `wt` against `base` made both ways (`read-tree`, then the index written from the tree `reader` reads), with the git processes each started. */
async function bothWays(f: Fixture, wt: string, base: string): Promise<{ viaGit: string; inProcess: string; gitProcesses: number; inProcessProcesses: number }> {
  const repo = (await Repo.open(f.dir)).keepReader();
  try {
    const objects = path.join(f.dir, ".git", "objects");
    // The reader is a sandbox's long-lived one: started before, as a sandbox's is.
    const reader = repo.reader;
    await reader?.read(base);
    const a = await countGitProcesses(() => worktreePatch(wt, objects, base, f.scratch("diff-a.git")));
    const b = await countGitProcesses(() => worktreePatch(wt, objects, base, f.scratch("diff-b.git"), reader));
    return { viaGit: a.result, inProcess: b.result, gitProcesses: a.processes, inProcessProcesses: b.processes };
  } finally {
    await repo.close();
  }
}

describe("worktreePatch with the base's index written in-process", () => {
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
    expect(r.inProcess).toBe(r.viaGit);
    expect(r.gitProcesses).toBe(3);
    expect(r.inProcessProcesses).toBe(2);
    // The patch is the hostile one: it holds what the agent changed and nothing ignored that git did not track.
    for (const part of ["a/debug.log", "deleted file mode 100644\nindex", "a/-rf", "b/--cached", "old mode 100755\nnew mode 100644", "GIT binary patch", "b/a/b", "new file mode 160000", "deleted file mode 120000"]) {
      expect(r.inProcess).toContain(part);
    }
    expect(r.inProcess).not.toContain("new.log");
    expect(r.inProcess).not.toContain("build/new.txt");
  }, 60_000);

  it("leaves a tree git must judge itself to read-tree: the same answer or the same refusal", async () => {
    const f = fixture();
    const content = execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: f.dir, input: "content\n", encoding: "utf8" }).trim();
    const mktree = (lines: string[]): string => execFileSync("git", ["mktree", "--missing"], { cwd: f.dir, input: `${lines.join("\n")}\n`, encoding: "utf8" }).trim();
    const inner = mktree([`100644 blob ${content}\tx`]);
    // A tree object as bytes, as no git command would write it (names git refuses in any tree).
    const literal = (names: string[]): string => {
      const bytes = Buffer.concat(names.map((n) => Buffer.concat([Buffer.from(`100644 ${n}\0`, "latin1"), Buffer.from(content, "hex")])));
      return execFileSync("git", ["hash-object", "-t", "tree", "-w", "--literally", "--stdin"], { cwd: f.dir, input: bytes, encoding: "utf8" }).trim();
    };
    const wt = f.scratch("plain");
    put(wt, "x", "content\n");

    for (const tree of [
      literal([".."]),
      literal(["."]),
      literal([""]),
      literal(["a/b"]),
      mktree([`040000 tree ${inner}\t.GIT`]),
      mktree([`040000 tree ${inner}\tgit~1`]),
      mktree([`100644 blob ${content}\t.git. `]),
      mktree([`120000 blob ${content}\t.gitmodules`]),
      mktree([`100644 blob ${content}\tback\\slash`]),
      mktree([`100664 blob ${content}\tx`]),
      mktree([`100644 blob ${content}\tx`, `040000 tree ${inner}\tx`]),
      mktree([`100644 blob ${content}\tx`, `100755 blob ${content}\tx`]),
      // HFS ignores U+200C: git refuses this `.git` only where core.protectHFS is set, which gitgood's git never reads.
      mktree([`040000 tree ${inner}\t.g\u200cit`]),
    ]) {
      const repo = (await Repo.open(f.dir)).keepReader();
      const objects = path.join(f.dir, ".git", "objects");
      const outcome = async (reader: typeof repo.reader): Promise<string> =>
        worktreePatch(wt, objects, tree, f.scratch(`d-${tree}-${reader ? "r" : "g"}.git`), reader).then(
          (p) => `patch ${p}`,
          (e: unknown) => `refused ${(e as Error).message.replace(/\/\S+/g, "PATH")}`,
        );
      try {
        expect(await outcome(repo.reader), tree).toBe(await outcome(null));
      } finally {
        await repo.close();
      }
    }
  }, 60_000);
});
