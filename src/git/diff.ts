import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runGit } from "./process.js";
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

/** A file's bytes under a path relative to a project root, or null when the file does not exist. */
export interface FileBytes {
  path: string;
  bytes: Buffer | null;
}

function writeSide(root: string, files: readonly FileBytes[]): void {
  mkdirSync(root, { recursive: true });
  for (const f of files) {
    const full = path.resolve(root, f.path);
    if (f.bytes === null || !full.startsWith(root + path.sep)) continue;
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, f.bytes);
  }
}

/**
 * A plain diff for people between two sets of files that live in no common repository (a recorded
 * answer and an agent's result), shown as `a/<path>` and `b/<path>` like a diff of two revisions.
 * The files are written to a temporary directory that is removed afterwards.
 */
export async function fileSetDiff(before: readonly FileBytes[], after: readonly FileBytes[]): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-diff-"));
  try {
    writeSide(path.join(dir, "a"), before);
    writeSide(path.join(dir, "b"), after);
    const r = await runGit(["diff", "--no-index", "--no-color", "--no-ext-diff", "--no-textconv", "--no-prefix", "a", "b"], {
      cwd: dir,
      env: { GIT_CONFIG_GLOBAL: os.devNull },
      okCodes: [0, 1],
    });
    return r.stdout.toString("utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
