import type { Person } from "./commits.js";
import { headCommit } from "./refs.js";
import { MERGE_CONFIG, type Repo } from "./repo.js";

/** Creates or resets `branch` at `rev` and checks it out (`git checkout -B`). */
export async function checkoutBranch(repo: Repo, branch: string, rev: string): Promise<void> {
  await repo.run(["checkout", "-q", "-B", branch, rev]);
}

/**
 * Starts `git merge --no-ff --no-commit` of `rev` into HEAD with the settings of a plain merge
 * (MERGE_CONFIG). Returns false when git stopped with conflicts, true when it merged cleanly.
 */
export async function mergeNoCommit(repo: Repo, rev: string): Promise<boolean> {
  const r = await repo.run([...MERGE_CONFIG, "merge", "--no-ff", "--no-commit", "-q", rev], { okCodes: [0, 1] });
  return r.code === 0;
}

/** The paths git reports as unmerged (conflicted), each once, in git's order. */
export async function unmergedPaths(repo: Repo): Promise<string[]> {
  const out = await repo.text(["diff", "--name-only", "--diff-filter=U", "-z"]);
  return [...new Set(out.split("\0").filter(Boolean))];
}

/** Moves HEAD to `rev` and resets the index to it, leaving the work tree alone (`git reset --mixed`); without `rev`, resets the index to HEAD. */
export async function resetIndex(repo: Repo, rev?: string): Promise<void> {
  await repo.run(["reset", "-q", ...(rev === undefined ? [] : [rev])]);
}

/** Makes the index hold the tree of `treeish`, leaving HEAD and the work tree alone. */
export async function readTreeIntoIndex(repo: Repo, treeish: string): Promise<void> {
  await repo.run(["read-tree", treeish]);
}

/** Makes the index and the work tree hold `tree` (a two-way `read-tree -m -u` from HEAD), leaving HEAD where it is. */
export async function checkoutTree(repo: Repo, tree: string): Promise<void> {
  await repo.run(["read-tree", "-m", "-u", "HEAD", tree]);
}

/**
 * Stages every change (additions, edits, deletions) under `paths`, also of files outside a sparse
 * work tree's patterns (a conflicted file a merge wrote there).
 */
export async function addPaths(repo: Repo, paths: readonly string[]): Promise<void> {
  await repo.run(["add", "--sparse", "-A", "--", ...paths]);
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

export interface CommitOptions {
  /** File holding the message, taken as git's `--cleanup` mode says. */
  messageFile: string;
  cleanup: "verbatim" | "whitespace";
  author: Person;
  committer: Person;
}

/** Commits the index (no hooks) with exactly the given people and dates; returns the new commit. */
export async function commitStaged(repo: Repo, opts: CommitOptions): Promise<string> {
  await repo.run(["commit", "-q", "--no-verify", `--cleanup=${opts.cleanup}`, "-F", opts.messageFile], {
    env: identityEnv(opts.author, opts.committer),
  });
  return headCommit(repo);
}
