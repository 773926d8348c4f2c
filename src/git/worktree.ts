import { copyFileSync, existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import type { Person } from "./commits.js";
import { showPath } from "./paths.js";
import { readIndexFile } from "./index-file.js";
import { checkoutWithoutGit } from "./own-checkout.js";
import { commitWithoutGit, stageWithoutGit } from "./own-commit.js";
import { mergeWithoutGitMerge } from "./own-merge.js";
import { headCommit } from "./refs.js";
import { MERGE_CONFIG, type Repo } from "./repo.js";

/**
 * Creates or resets `branch` at `rev` and checks it out (`git checkout -B`). The first checkout of a
 * fresh tool-only sandbox is written without git where that gives what git gives (own-checkout.ts).
 */
export async function checkoutBranch(repo: Repo, branch: string, rev: string): Promise<void> {
  if (await checkoutWithoutGit(repo, branch, rev)) return;
  await repo.run(["checkout", "-q", "-B", branch, rev]);
}

/**
 * Starts `git merge --no-ff --no-commit` of `rev` into HEAD with the settings of a plain merge
 * (MERGE_CONFIG). Returns false when git stopped with conflicts, true when it merged cleanly. On a
 * tool-only sandbox just checked out, a merge that stops on conflicts is one `git merge-tree` and files
 * gitgood writes as `git merge` leaves them, where that gives what git gives (own-merge.ts).
 */
export async function mergeNoCommit(repo: Repo, rev: string): Promise<boolean> {
  if ((await mergeWithoutGitMerge(repo, rev)) === false) return false;
  const r = await repo.run([...MERGE_CONFIG, "merge", "--no-ff", "--no-commit", "-q", rev], { okCodes: [0, 1] });
  return r.code === 0;
}

/**
 * The tree `git merge` recorded as AUTO_MERGE in gitgood's own git directory `gitDir`: the merge's
 * result with its conflicts as written to the work tree (markers included). Null when there is none.
 */
export function autoMergeTree(gitDir: string): string | null {
  try {
    return /^([0-9a-f]{40}|[0-9a-f]{64})\n?$/.exec(readFileSync(path.join(gitDir, "AUTO_MERGE"), "latin1"))?.[1] ?? null;
  } catch {
    return null;
  }
}

/** One side of an unmerged index entry. */
interface IndexStage {
  /** 1 the merge base, 2 ours (HEAD), 3 theirs (MERGE_HEAD, or the commit a rebase applies). */
  stage: number;
  /** Git's mode: 100644, 100755, 120000 (a symbolic link), 160000 (a submodule). */
  mode: string;
  oid: string;
}

/** An unmerged (conflicted) path of the index, with the sides it holds. */
interface UnmergedEntry {
  /** The path's bytes as git stores them. */
  path: Buffer;
  stages: IndexStage[];
}

/** The unmerged entries of the index file of gitgood's own git directory, read without git; null where git must read it. */
function unmergedOfOwnIndex(repo: Repo): UnmergedEntry[] | null {
  if (!repo.ownGitDir) return null;
  const index = readIndexFile(repo.gitDir);
  if (index === null) return null;
  const entries: UnmergedEntry[] = [];
  for (const e of index) {
    if (e.stage === 0) continue;
    const last = entries[entries.length - 1];
    const side = { stage: e.stage, mode: e.mode, oid: e.oid };
    if (last?.path.equals(e.name)) last.stages.push(side);
    else entries.push({ path: e.name, stages: [side] });
  }
  return entries;
}

/**
 * The unmerged entries of the index, in git's (byte) order: read from the index file when the git
 * directory is gitgood's own (a sandbox's), else from `git ls-files -u -z`.
 */
export async function unmergedEntries(repo: Repo): Promise<UnmergedEntry[]> {
  const own = unmergedOfOwnIndex(repo);
  if (own !== null) return own;
  const out = (await repo.run(["ls-files", "-u", "-z"])).stdout;
  const entries: UnmergedEntry[] = [];
  for (let at = 0; at < out.length; ) {
    const end = out.indexOf(0, at);
    const record = out.subarray(at, end === -1 ? out.length : end);
    at = end === -1 ? out.length : end + 1;
    const tab = record.indexOf(0x09);
    const [mode = "", oid = "", stage = ""] = record.toString("latin1", 0, tab).split(" ");
    const file = record.subarray(tab + 1);
    const last = entries[entries.length - 1];
    const side = { stage: Number(stage), mode, oid };
    if (last?.path.equals(file)) last.stages.push(side);
    else entries.push({ path: Buffer.from(file), stages: [side] });
  }
  return entries;
}

/** The paths git reports as unmerged (conflicted), each once, in git's order, in the notation of paths.ts. */
export async function unmergedPaths(repo: Repo): Promise<string[]> {
  return (await unmergedEntries(repo)).map((e) => showPath(e.path));
}

/** Moves HEAD to `rev` and resets the index to it, leaving the work tree alone (`git reset --mixed`); without `rev`, resets the index to HEAD. */
export async function resetIndex(repo: Repo, rev?: string): Promise<void> {
  await repo.run(["reset", "-q", ...(rev === undefined ? [] : [rev])]);
}

/** Makes the index hold the tree of `treeish`, leaving HEAD and the work tree alone. */
export async function readTreeIntoIndex(repo: Repo, treeish: string): Promise<void> {
  await repo.run(["read-tree", treeish]);
}

/**
 * Makes the work tree hold `tree` and leaves HEAD and the index where they are (at HEAD): a two-way
 * `read-tree -m -u` from HEAD whose resulting index goes to `treeIndex` (a file of gitgood's own)
 * instead of the repository's index, in one process. That file is the index of `tree` for this work
 * tree (`useIndexFile` puts it in place later); it is removed when the checkout fails.
 */
export async function checkoutTreeOnly(repo: Repo, tree: string, treeIndex: string): Promise<void> {
  try {
    await repo.run(["read-tree", "-m", "-u", `--index-output=${treeIndex}`, "HEAD", tree]);
  } catch (err) {
    rmSync(treeIndex, { force: true });
    throw err;
  }
}

/**
 * `checkoutBranch(branch, rev)` and then `checkoutTreeOnly(tree, treeIndex)`: HEAD and the index at `rev`
 * on `branch`, the work tree at `tree` and that tree's index in `treeIndex`. On a fresh tool-only sandbox
 * both are written without git where that gives what git gives (own-checkout.ts).
 */
export async function checkoutBranchAndTree(repo: Repo, branch: string, rev: string, tree: string, treeIndex: string): Promise<void> {
  if (await checkoutWithoutGit(repo, branch, rev, { tree, treeIndex })) return;
  await checkoutBranch(repo, branch, rev);
  await checkoutTreeOnly(repo, tree, treeIndex);
}

/**
 * Makes the index of gitgood's own git directory a copy of the index file `file` (one git wrote, such as
 * `checkoutTreeOnly`'s), through `index.lock` as git does. False, with nothing changed, for another git
 * directory, a missing file or a lock already taken.
 */
export function useIndexFile(repo: Repo, file: string): boolean {
  if (!repo.ownGitDir || !existsSync(file)) return false;
  const lock = path.join(repo.gitDir, "index.lock");
  try {
    copyFileSync(file, lock, 1);
  } catch {
    return false;
  }
  renameSync(lock, path.join(repo.gitDir, "index"));
  return true;
}

/**
 * Stages the current state of each of `paths` (files and symbolic links, as a resolution leaves them):
 * an edit or addition is added, a path gone from the work tree is removed from the index, a path in
 * neither is skipped. Paths are taken literally, as bytes (a string is UTF-8), and go to git on stdin,
 * so any name reaches it; an unmerged path becomes resolved. Files outside a sparse work tree's
 * patterns are staged too. In gitgood's own git directory the blobs and the index are written without
 * git where that gives what git gives (own-commit.ts).
 */
export async function addPaths(repo: Repo, paths: readonly (string | Buffer)[]): Promise<void> {
  if (paths.length === 0) return;
  const names = paths.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : p));
  if (stageWithoutGit(repo, names)) return;
  const input = Buffer.concat(names.flatMap((p) => [p, Buffer.alloc(1)]));
  await repo.run(["update-index", "--add", "--remove", "-z", "--stdin"], { input });
}

/** Applies a patch (bytes as `git diff --binary` wrote them) to the index only. */
export async function applyToIndex(repo: Repo, patch: Buffer): Promise<void> {
  await repo.run(["apply", "--cached", "--whitespace=nowarn", "-"], { input: patch });
}

/** Environment that makes git record `author` and `committer` exactly. */
function identityEnv(author: Person, committer: Person): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_AUTHOR_DATE: author.date,
    GIT_COMMITTER_NAME: committer.name,
    GIT_COMMITTER_EMAIL: committer.email,
    GIT_COMMITTER_DATE: committer.date,
  };
}

interface CommitOptions {
  /** File holding the message, taken as git's `--cleanup` mode says. */
  messageFile: string;
  cleanup: "verbatim" | "whitespace";
  author: Person;
  committer: Person;
}

/**
 * Commits the index (no hooks) with exactly the given people and dates; returns the new commit. No
 * `maintenance run --auto` follows the commit: a sandbox lives for one attempt, and that process is one
 * more start per commit for nothing. In gitgood's own git directory the trees, the commit and the ref
 * are written without git where that gives what git gives (own-commit.ts).
 */
export async function commitStaged(repo: Repo, opts: CommitOptions): Promise<string> {
  const message = readFileSync(opts.messageFile, "utf8");
  const own = await commitWithoutGit(repo, { ...opts, message });
  if (own !== null) return own;
  await repo.run(["-c", "maintenance.auto=false", "commit", "-q", "--no-verify", `--cleanup=${opts.cleanup}`, "-F", opts.messageFile], {
    env: identityEnv(opts.author, opts.committer),
  });
  return headCommit(repo);
}
