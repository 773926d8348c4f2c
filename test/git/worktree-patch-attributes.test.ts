import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { worktreePatch, worktreeSnapshot } from "../../src/git/apply.js";
import { freshIndexEntries } from "../../src/git/index-file.js";
import { STORED_BYTES_ATTRIBUTES } from "../../src/git/stored-bytes.js";
import { fixtureEnv, useFixtures, type Fixture } from "../helpers/fixture.js";

const fixture = useFixtures();

const CRLF_BAT = "@echo off\r\nrem one\r\nrem two\r\nrem three\r\n";
const LF_BAT = "@echo off\nrem uno\nrem dos\n";

/** Runs git in `cwd` with the fixtures' environment; stdout as bytes. */
function git(cwd: string, args: string[], input?: string): Buffer {
  return execFileSync("git", args, { cwd, env: fixtureEnv(), stdio: "pipe", ...(input === undefined ? {} : { input }) });
}

/**
 * A project as mockito has it: `x.bat text eol=crlf` over a blob committed with CRLF (committed before
 * the attribute was, so git never normalised it), `y.bat` under the same rule stored with LF (the
 * checkout writes CRLF), and a Python file no attribute touches. Returns the base commit.
 */
function crlfProject(f: Fixture): string {
  f.commit("code", { "calc.py": "def sub(a, b):\n    return a + b\n", "x.bat": CRLF_BAT });
  f.write({ ".gitattributes": "*.bat text eol=crlf\n", "y.bat": LF_BAT });
  f.git("add", ".gitattributes", "y.bat");
  f.git("commit", "-q", "-m", "attributes");
  expect(f.git("cat-file", "blob", "HEAD:x.bat")).toContain("\r");
  return f.head();
}

/** A work tree of `base` checked out by git with the project's attributes (`git worktree add`). */
function checkout(f: Fixture, name: string, base: string): string {
  const wt = path.join(f.scratch("trees"), name);
  f.git("worktree", "add", "-q", "--detach", wt, base);
  return wt;
}

/** The patch of `wt` against `base`, read both ways (`read-tree`; the entries of the index the checkout wrote), which must agree. */
async function patchOf(f: Fixture, wt: string, base: string): Promise<string> {
  const gitDir = path.join(f.dir, ".git");
  const objects = path.join(gitDir, "objects");
  const viaGit = await worktreePatch(wt, objects, base, f.scratch(`diff-${path.basename(wt)}-a.git`), gitDir);
  const entries = freshIndexEntries(gitDir, path.join(gitDir, "worktrees", path.basename(wt), "index"));
  expect(entries).not.toBeNull();
  const fromIndex = await worktreePatch(wt, objects, base, f.scratch(`diff-${path.basename(wt)}-b.git`), gitDir, entries);
  expect(fromIndex).toBe(viaGit);
  return viaGit;
}

/**
 * The files `patch` leaves when `git apply` takes it onto the bytes `base` stores (written from the
 * blobs, applied by a git that converts nothing): the oracle for "the patch holds the work tree's bytes".
 */
function appliedToStoredBytes(f: Fixture, base: string, patch: string, files: readonly string[]): Map<string, Buffer> {
  const dir = f.scratch(`applied-${Math.random().toString(36).slice(2)}`);
  git(dir, ["init", "-q"]);
  writeFileSync(path.join(dir, ".git", "info", "attributes"), STORED_BYTES_ATTRIBUTES);
  for (const file of f.git("ls-tree", "-r", "--name-only", base).split("\n")) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), git(f.dir, ["cat-file", "blob", `${base}:${file}`]));
  }
  git(dir, ["apply", "-"], patch);
  return new Map(files.map((file) => [file, readFileSync(path.join(dir, file))]));
}

describe("worktreePatch in a project whose attributes convert line endings", () => {
  it("holds nothing for a fresh checkout: the CRLF blob under `text eol=crlf` is not read back as a change", async () => {
    const f = fixture();
    const base = crlfProject(f);
    const wt = checkout(f, "fresh", base);
    expect(readFileSync(path.join(wt, "x.bat"), "latin1")).toBe(CRLF_BAT);
    expect(readFileSync(path.join(wt, "y.bat"), "latin1")).toBe(LF_BAT.replaceAll("\n", "\r\n"));
    expect(await patchOf(f, wt, base)).toBe("");
  }, 60_000);

  it("holds exactly the lines changed on disk, against what the checkout wrote, and git apply in a fresh checkout writes the agent's bytes", async () => {
    const f = fixture();
    const base = crlfProject(f);
    const wt = checkout(f, "edited", base);
    writeFileSync(path.join(wt, "calc.py"), "def sub(a, b):\n    return a - b\n");
    writeFileSync(path.join(wt, "x.bat"), CRLF_BAT.replace("rem two", "rem 2"));
    writeFileSync(path.join(wt, "y.bat"), readFileSync(path.join(wt, "y.bat"), "latin1").replace("rem dos", "rem 2"));
    const patch = await patchOf(f, wt, base);
    expect(patch.match(/^diff --git .*$/gm)).toEqual(["diff --git a/calc.py b/calc.py", "diff --git a/x.bat b/x.bat", "diff --git a/y.bat b/y.bat"]);
    expect(patch).toContain("-rem two\r\n+rem 2\r\n");
    expect(patch).toContain("-rem dos\r\n+rem 2\r\n");
    // One line each: the others are context, not a conversion of the whole file.
    expect(patch.match(/^[-+](?![-+]{2} )/gm)).toHaveLength(6);
    // The evaluation's way: a checkout of the base with the project's attributes, then git apply.
    const evaluated = checkout(f, "evaluated", base);
    git(evaluated, ["apply", "-"], patch);
    for (const file of ["calc.py", "x.bat", "y.bat"]) expect(readFileSync(path.join(evaluated, file))).toEqual(readFileSync(path.join(wt, file)));
  }, 60_000);
});

describe("worktreePatch with a .gitattributes the agent wrote", () => {
  it("neither invents, hides, re-encodes nor turns binary a change: the patch applied to the stored bytes gives the work tree's bytes", async () => {
    const f = fixture();
    const base = f.commit("base", {
      "dos.txt": "stored\r\nwith crlf\r\n",
      "code.py": "x = 1\ny = 2\n",
      "id.txt": "version $Id$\n",
      "shown.py": "print('a')\n",
      "plain.txt": "hello\n",
    });
    const wt = checkout(f, "hostile", base);
    // Each rule would make git read a file otherwise than its bytes: normalise a file nobody changed, fold
    // away CRLFs the agent wrote, collapse an $Id$ that carries text, show a text change as binary, re-encode.
    writeFileSync(
      path.join(wt, ".gitattributes"),
      "dos.txt text\ncode.py text eol=lf\nid.txt ident\nshown.py -diff\nplain.txt working-tree-encoding=UTF-16LE\n",
    );
    writeFileSync(path.join(wt, "code.py"), "x = 1\r\ny = 2\r\n");
    writeFileSync(path.join(wt, "id.txt"), "version $Id: carried past the reader $\n");
    writeFileSync(path.join(wt, "shown.py"), "print('b')\n");
    const patch = await patchOf(f, wt, base);
    expect(patch.match(/^diff --git .*$/gm)).toEqual([
      "diff --git a/.gitattributes b/.gitattributes",
      "diff --git a/code.py b/code.py",
      "diff --git a/id.txt b/id.txt",
      "diff --git a/shown.py b/shown.py",
    ]);
    expect(patch).not.toContain("GIT binary patch");
    expect(patch).toContain("+print('b')\n");
    const files = [".gitattributes", "dos.txt", "code.py", "id.txt", "shown.py", "plain.txt"];
    const applied = appliedToStoredBytes(f, base, patch, files);
    for (const file of files) expect(applied.get(file), file).toEqual(readFileSync(path.join(wt, file)));
  }, 60_000);
});

describe("worktreeSnapshot and worktreePatch of a directory handed over (no checkout of gitgood's)", () => {
  it("record the bytes as they are: an attribute the agent adds afterwards changes nothing it did not write", async () => {
    const f = fixture();
    const dir = f.scratch("handed-over");
    writeFileSync(path.join(dir, ".gitattributes"), "*.bat text eol=crlf\n");
    writeFileSync(path.join(dir, "x.bat"), "rem lf only\n");
    writeFileSync(path.join(dir, "dos.txt"), "crlf\r\nhere\r\n");
    writeFileSync(path.join(dir, "code.py"), "x = 1\n");
    const scratch = f.scratch("snapshot");
    const base = await worktreeSnapshot(dir, path.join(scratch, "base.git"));
    expect(git(dir, ["--git-dir", path.join(scratch, "base.git"), "cat-file", "blob", `${base}:x.bat`]).toString("latin1")).toBe("rem lf only\n");
    const objects = path.join(scratch, "base.git", "objects");
    expect(await worktreePatch(dir, objects, base, path.join(scratch, "diff.git"), null)).toBe("");
    writeFileSync(path.join(dir, ".gitattributes"), "* text eol=lf\n");
    writeFileSync(path.join(dir, "code.py"), "x = 2\r\n");
    const patch = await worktreePatch(dir, objects, base, path.join(scratch, "diff.git"), null);
    expect(patch.match(/^diff --git .*$/gm)).toEqual(["diff --git a/.gitattributes b/.gitattributes", "diff --git a/code.py b/code.py"]);
    expect(patch).toContain("-x = 1\n+x = 2\r\n");
  }, 60_000);
});
