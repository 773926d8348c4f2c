import { lstatSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { checkoutMayConvert, checkoutTree } from "./checkout-bytes.js";
import { readIndexFile, type IndexEntry, type IndexRecord } from "./index-file.js";
import { writeIndexFile } from "./index-write.js";
import { writeOwnGitDir } from "./own-git-dir.js";
import { keepStoredBytes } from "./stored-bytes.js";
import { GitGoodError } from "../errors.js";
import { nestedRepositories } from "./nested-repos.js";
import { runGit } from "./process.js";
import { LITERAL_PATHS, type Repo } from "./repo.js";

/** The `git apply` variants SWE-style evaluation tries, in order, before `patch -p1 --fuzz=3`. */
export const GIT_APPLY_STRATEGIES = ["git apply", "git apply --ignore-whitespace", "git apply --3way"] as const;
type GitApplyStrategy = (typeof GIT_APPLY_STRATEGIES)[number];

const STRATEGY_ARGS: Record<GitApplyStrategy, readonly string[]> = {
  "git apply": [],
  "git apply --ignore-whitespace": ["--ignore-whitespace"],
  "git apply --3way": ["--3way"],
};

interface ApplyOutcome {
  applied: boolean;
  /** git's complaint when it did not apply. */
  message: string;
}

/**
 * Applies a patch to the work tree of `repo` (`--3way` also to the index, and only when every hunk
 * merges without conflict). The patch goes to git on stdin as bytes. Nothing is applied unless all of
 * it applies; a refusal is an outcome, not an error.
 */
export async function applyPatch(repo: Repo, patch: string | Buffer, strategy: GitApplyStrategy): Promise<ApplyOutcome> {
  const r = await repo.run(["apply", "--whitespace=nowarn", ...STRATEGY_ARGS[strategy], "-"], { input: patch, okCodes: [0, 1, 128] });
  const message = r.stderr.split("\n").find((l) => l.trim() !== "")?.trim() ?? "";
  return { applied: r.code === 0, message };
}

/** Whether `rel` names anything in the work tree `workDir` (a file, a link, a directory). */
function present(workDir: string, rel: string): boolean {
  try {
    lstatSync(path.join(workDir, rel));
    return true;
  } catch {
    return false;
  }
}

/** The entries of `index` at `paths` or below them (a path may name a directory). */
function entriesAt(index: readonly IndexEntry[], paths: readonly string[]): IndexEntry[] {
  return index.filter((e) => paths.some((p) => e.path === p || e.path.startsWith(`${p}/`)));
}

/** The mode of a submodule's entry (a commit of another repository), as an index entry spells it. */
const GITLINK = "160000";

/** Whether two paths are the same, or one is a folder above the other. */
function related(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/** Whether two lists of index entries are the same entries (path, stage, mode, object). */
function sameEntries(a: readonly IndexEntry[], b: readonly IndexEntry[]): boolean {
  const line = (e: IndexEntry): string => `${e.stage} ${e.mode} ${e.oid} ${e.path}`;
  return a.length === b.length && a.every((e, i) => line(e) === line(b[i] as IndexEntry));
}

/**
 * Puts `paths` back as HEAD has them, in the index and the work tree: files HEAD holds are checked out,
 * others (new files a patch made, ignored or not) removed. Paths are literal. Other files are left alone
 * (a built environment in the work tree survives). The index must hold exactly HEAD's entries among
 * `paths`: `reset` makes it so, and the index is then read from gitgood's own git directory to tell the
 * two kinds apart; `checkout` and `clean` run only for paths that need them (a new file nothing made
 * again needs neither). A caller that has `head`, the entries of the index a fresh checkout of HEAD
 * wrote, saves the `reset` where the index still holds exactly those entries among `paths` (a plain `git
 * apply` changes the work tree alone), and saves everything where no path is in HEAD, the index or the
 * work tree. With those entries, `changed`, the paths where the work tree differs from HEAD as git
 * reported them after the last change to it (`changedPaths`, or a patch of the work tree), saves the
 * `checkout` too where none of them is a file HEAD holds among `paths`, a folder above one or a path below
 * one: git compares every tracked file's content and mode, and reports a file behind a folder made a link
 * as deleted, so those files are as HEAD has them already. A submodule among them is checked out as ever.
 */
export async function resetPaths(repo: Repo, paths: readonly string[], head?: readonly IndexEntry[], changed?: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  const now = head ? readIndexFile(repo.gitDir) : null;
  const kept = head && now !== null ? entriesAt(head, paths) : null;
  let inHead: Set<string>;
  let untouched = false;
  if (kept && now !== null && sameEntries(entriesAt(now, paths), kept)) {
    inHead = new Set(kept.map((e) => e.path));
    if (inHead.size === 0 && !paths.some((p) => present(repo.dir, p))) return;
    untouched = changed !== undefined && kept.every((e) => e.mode !== GITLINK && !changed.some((c) => related(c, e.path)));
  } else {
    await repo.run(["reset", "-q", "HEAD", "--", ...paths], { env: LITERAL_PATHS, okCodes: [0, 1] });
    const index = readIndexFile(repo.gitDir);
    if (index !== null) {
      inHead = new Set(index.map((e) => e.path));
    } else {
      const listed = (await repo.run(["ls-tree", "-r", "-z", "--name-only", "HEAD", "--", ...paths], { env: LITERAL_PATHS })).stdout;
      inHead = new Set(listed.toString("utf8").split("\0").filter((p) => p !== ""));
    }
  }
  const tracked = paths.filter((p) => inHead.has(p));
  const others = paths.filter((p) => !inHead.has(p) && present(repo.dir, p));
  if (tracked.length > 0 && !untouched) await repo.run(["checkout", "-q", "-f", "HEAD", "--", ...tracked], { env: LITERAL_PATHS });
  if (others.length > 0) await repo.run(["clean", "-q", "-f", "-x", "--", ...others], { env: LITERAL_PATHS });
}

/**
 * The paths where the work tree of `repo` differs from `baseIndex`, an index file holding exactly the
 * tree of HEAD (a copy of the repository's index taken right after a checkout): files changed, deleted,
 * added (not ignored ones) or with another mode, in one `git status` through the repository's git
 * directory, which must be gitgood's own. The copy is refreshed in place, never the repository's index.
 */
export async function changedPaths(repo: Repo, baseIndex: string): Promise<string[]> {
  const r = await repo.run(["status", "--porcelain", "-z", "--untracked-files=all", "--ignored=no", "--no-renames", "--ignore-submodules=all"], {
    env: { GIT_INDEX_FILE: baseIndex },
  });
  // Each record is `XY path`; a directory (a nested repository) ends with a slash.
  return r.stdout
    .toString("utf8")
    .split("\0")
    .filter((rec) => rec.length > 3)
    .map((rec) => rec.slice(3).replace(/\/+$/, ""));
}

/** Checks out `rev` detached, throwing away every change to tracked files (`git checkout -f --detach`). */
export async function checkoutDetached(repo: Repo, rev: string): Promise<void> {
  await repo.run(["checkout", "-q", "-f", "--detach", rev]);
}

/** How git sees a work tree through a git directory of gitgood's own: bytes as they are, modes and links kept. */
const OWN_CONFIG = ["-c", "core.bare=false", "-c", "core.autocrlf=false", "-c", "core.safecrlf=false", "-c", "core.fileMode=true", "-c", "core.symlinks=true"];

const NUL = Buffer.from([0]);

/**
 * Stages the whole work tree of `workDir` (`git add -A`) in the git directory `env` names. A nested
 * repository without a commit makes git refuse the whole work tree; then every untracked folder holding a
 * repository is left out (an agent's `git init` in a new folder must not turn its attempt into a system
 * error, and another repository is no part of a patch), found by a walk that follows no link.
 */
async function addWorkTree(workDir: string, env: Record<string, string>): Promise<void> {
  try {
    await runGit([...OWN_CONFIG, "add", "-A", "--", "."], { cwd: workDir, env });
  } catch (err) {
    if (!(err instanceof GitGoodError) || !/does not have a commit checked out/.test(String(err.data.stderr ?? ""))) throw err;
    // git stopped before writing: the index is still the base's, which says which folders are the repository's own.
    const tracked = readIndexFile(env.GIT_DIR ?? "", env.GIT_INDEX_FILE);
    if (tracked === null) throw err;
    // The pathspecs go on stdin, NUL-separated: a folder's name is bytes, which no argument carries as they are.
    const excluded = nestedRepositories(workDir, tracked.map((e) => e.name)).map((dir) => Buffer.concat([Buffer.from(":(exclude,literal)"), dir, NUL]));
    const input = Buffer.concat([Buffer.from("."), NUL, ...excluded]);
    await runGit([...OWN_CONFIG, "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"], { cwd: workDir, env, input });
  }
}

/**
 * Makes a fresh git directory at `gitDir` for the work tree `workDir` (written here, no git process: no
 * hooks, no templates) that reads every file as its bytes whatever the work tree's `.gitattributes` say
 * (STORED_BYTES_ATTRIBUTES: no conversion on the way in, `diff` unspecified), and returns the
 * environment that pairs them.
 */
function initOwnGitDir(workDir: string, gitDir: string): Record<string, string> {
  rmSync(gitDir, { recursive: true, force: true });
  writeOwnGitDir(gitDir, "main", "");
  keepStoredBytes(gitDir);
  return { GIT_CONFIG_GLOBAL: os.devNull, GIT_DIR: gitDir, GIT_WORK_TREE: workDir, GIT_INDEX_FILE: path.join(gitDir, "index") };
}

/**
 * Records the work tree of `workDir` as it is now (new and binary files included, ignored ones not) in
 * a bare git directory of gitgood's own at `gitDir`, and returns its tree's id: the base `worktreePatch`
 * diffs against later, with `gitDir`'s objects. For a directory someone else handed over, a git work
 * tree or a plain copy alike: nothing its own `.git` holds (config, hooks, index, objects) is read.
 */
export async function worktreeSnapshot(workDir: string, gitDir: string): Promise<string> {
  const env = initOwnGitDir(workDir, gitDir);
  await addWorkTree(workDir, env);
  return (await runGit([...OWN_CONFIG, "write-tree"], { cwd: workDir, env })).stdout.toString("utf8").trim();
}

/**
 * The work tree of `workDir` as a patch against the commit (or tree) `base`: every change, new files (not
 * ignored ones) and binary files included, byte-exact (`git apply` takes it back). It is made with a
 * git directory of its own in `scratch` that borrows the objects of `objectsDir`, so nothing the work
 * tree's own `.git` holds (its config, hooks, index) is read, and the repository is not changed. Its
 * index starts as `base`'s tree: `baseEntries` where the caller has them (`freshIndexEntries` of the index
 * a checkout of `base` wrote, in a git directory of gitgood's own), written here, else by `git
 * read-tree`; then `git add -A` and `git diff --cached` make the patch.
 *
 * Files are read as their bytes: no attribute, the work tree's `.gitattributes` included, converts them
 * (STORED_BYTES_ATTRIBUTES in its `info/attributes`, which outranks them): no line-ending rule or
 * `ident` invents a change or hides one, no `-diff` turns a text change into a binary one.
 * `checkoutGitDir` is the git directory whose checkout of `base` wrote the work tree (the base's
 * attributes and its `info/attributes` applied there), null where the work tree started as `base`'s
 * stored bytes (a `worktreeSnapshot`). A file that checkout wrote otherwise than its blob holds is
 * diffed against what the checkout wrote (`checkoutTree`), so the patch holds only what changed on disk
 * since; in a project whose attributes convert nothing, that is `base` itself.
 * Returned as a latin1 string: one character per byte.
 */
export async function worktreePatch(
  workDir: string,
  objectsDir: string,
  base: string,
  scratch: string,
  checkoutGitDir: string | null,
  baseEntries: readonly IndexRecord[] | null = null,
): Promise<string> {
  try {
    const env = initOwnGitDir(workDir, scratch);
    mkdirSync(path.join(scratch, "objects", "info"), { recursive: true });
    writeFileSync(path.join(scratch, "objects", "info", "alternates"), `${objectsDir}\n`);
    const config = OWN_CONFIG;
    if (baseEntries === null || !writeIndexFile(scratch, baseEntries)) await runGit([...config, "read-tree", base], { cwd: workDir, env });
    const converts = checkoutGitDir !== null && checkoutMayConvert(checkoutGitDir, baseEntries ?? readIndexFile(scratch));
    await addWorkTree(workDir, env);
    const from = converts ? await checkoutTree({ scratch, env, config, base, checkoutGitDir, baseEntries }) : base;
    const diff = await runGit(
      [...config, "diff", "--cached", "--binary", "--full-index", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames", "--src-prefix=a/", "--dst-prefix=b/", from],
      { cwd: workDir, env },
    );
    return diff.stdout.toString("latin1");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
