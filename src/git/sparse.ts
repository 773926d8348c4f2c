import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import type { Repo } from "./repo.js";

/** A sparse-checkout pattern that matches exactly `file` (a path from the repository root). */
function exactPattern(file: string): string {
  return `/${file.replace(/[\\*?[\]!# ]/g, (c) => `\\${c}`)}`;
}

/**
 * In a sparse work tree, the files checkouts write (git's sparse-checkout patterns, each matching one
 * path exactly); the index keeps every other file, marked skip-worktree. A path holding a line break
 * cannot be named in the patterns file and stays unwritten.
 */
export function checkOutOnly(gitDir: string, files: readonly string[]): void {
  mkdirSync(path.join(gitDir, "info"), { recursive: true });
  const patterns = files.filter((f) => !/[\r\n]/.test(f)).map(exactPattern);
  writeFileSync(path.join(gitDir, "info", "sparse-checkout"), patterns.map((p) => `${p}\n`).join(""));
}

/**
 * In a sparse work tree, adds files to those checkouts write, so that later checkouts keep them (a
 * file a conflict wrote, say); a full work tree is left alone.
 */
export function checkOutAlso(gitDir: string, files: readonly string[]): void {
  const file = path.join(gitDir, "info", "sparse-checkout");
  if (!existsSync(file)) return;
  const have = new Set(readFileSync(file, "utf8").split("\n"));
  const added = files.filter((f) => !/[\r\n]/.test(f)).map(exactPattern).filter((p) => !have.has(p));
  if (added.length > 0) appendFileSync(file, added.map((p) => `${p}\n`).join(""));
}

/** A path the index has but a sparse work tree does not: a file (with its bytes) or a directory of such files. */
type UnwrittenEntry =
  | { kind: "file"; bytes: Buffer }
  | { kind: "directory" }
  /** A symbolic link in the index: `path` is the link itself or the parent directory that is one. */
  | { kind: "link"; path: string; target: string };

/** A blob's bytes: through the repository's long-lived reader when it has one, else by `git cat-file blob`. */
async function blobBytes(repo: Repo, oid: string): Promise<Buffer> {
  const reader = repo.reader;
  if (!reader) return (await repo.run(["cat-file", "blob", oid])).stdout;
  const obj = await reader.read(oid);
  if (obj?.type !== "blob") throw new GitGoodError("GIT_FAILED", `the index names blob ${oid}, which the repository does not hold`, { oid });
  return obj.content;
}

/**
 * What the index holds at `file` when the work tree leaves it out (skip-worktree): the staged bytes,
 * or that it is a directory of such files. Null when the index has nothing there that the work tree
 * lacks (the path is absent, or written to the work tree).
 */
export async function unwrittenEntry(repo: Repo, file: string): Promise<UnwrittenEntry | null> {
  const parts = file.split("/");
  const parents = parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
  const out = await repo.text(["ls-files", "-z", "-v", "-s", "--", ...parents, file], { env: { GIT_LITERAL_PATHSPECS: "1" } });
  let directory = false;
  for (const record of out.split("\0")) {
    const m = /^(\S) (\d+) ([0-9a-f]+) 0\t([^]*)$/.exec(record);
    if (!m || m[1] !== "S") continue;
    const [, , mode, oid, name] = m as unknown as [string, string, string, string, string];
    if (mode === "120000" && (name === file || parents.includes(name))) {
      const target = (await blobBytes(repo, oid)).toString("utf8");
      return { kind: "link", path: name, target };
    }
    if (name === file) return { kind: "file", bytes: await blobBytes(repo, oid) };
    if (name.startsWith(`${file}/`)) directory = true;
  }
  return directory ? { kind: "directory" } : null;
}
