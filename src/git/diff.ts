import type { Repo } from "./repo.js";

/** Options for every diff shown to an agent or recorded in a final state: the same bytes on every machine. */
const DIFF_OPTIONS: readonly string[] = [
  "--no-color",
  "--no-ext-diff",
  "--no-textconv",
  "--no-renames",
  "-U3",
  "--src-prefix=a/",
  "--dst-prefix=b/",
];

/** Options of a patch `git apply` can take back byte for byte (binary files included). */
const PATCH_OPTIONS: readonly string[] = [...DIFF_OPTIONS, "--binary", "--full-index"];

/** The patch a commit introduces, against its first parent. */
export async function commitDiff(repo: Repo, oid: string): Promise<string> {
  return repo.text(["diff-tree", "-p", "--root", "--no-commit-id", ...DIFF_OPTIONS, oid]);
}

/**
 * One file's diff for an agent: the work tree against `against`, or without it against the index
 * (for an unmerged path that is git's combined diff against both sides).
 */
export async function fileDiff(repo: Repo, file: string, against?: string): Promise<string> {
  return repo.text(["diff", ...DIFF_OPTIONS, ...(against === undefined ? [] : [against]), "--", file]);
}

export interface PatchEntry {
  /** Git's status letter: A (added), D (deleted), M (modified), T (type changed). */
  status: string;
  path: string;
}

/** The files `patchBetween` lists, in the same order, with their status (names as git stores them). */
export async function patchEntries(repo: Repo, from: string, to: string): Promise<PatchEntry[]> {
  const names = (await repo.text(["diff", "--name-status", "-z", ...PATCH_OPTIONS, from, to])).split("\0");
  const entries: PatchEntry[] = [];
  for (let i = 0; i + 1 < names.length; i += 2) entries.push({ status: names[i] ?? "", path: names[i + 1] ?? "" });
  return entries;
}

/**
 * The patch from one revision to another, binary files included, as a latin1 string (one character
 * per byte, so taking it apart and applying pieces of it is byte-exact whatever the encoding).
 */
export async function patchBetween(repo: Repo, from: string, to: string): Promise<string> {
  return (await repo.run(["diff", ...PATCH_OPTIONS, from, to])).stdout.toString("latin1");
}

/**
 * A plain diff for people: from a revision to another revision, or to the work tree when `to` is
 * not given; limited to `paths` when they are given.
 */
export async function plainDiff(repo: Repo, from: string, opts: { to?: string; paths?: readonly string[] } = {}): Promise<string> {
  const to = opts.to === undefined ? [] : [opts.to];
  const paths = opts.paths === undefined ? [] : ["--", ...opts.paths];
  return repo.text(["diff", "--no-color", "--no-ext-diff", from, ...to, ...paths]);
}
