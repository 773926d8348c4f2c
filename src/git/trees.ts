import { showPath } from "./paths.js";
import type { Repo } from "./repo.js";

/** The tree of a revision. */
export async function treeOf(repo: Repo, rev: string): Promise<string> {
  return (await repo.text(["rev-parse", `${rev}^{tree}`])).trim();
}

/**
 * The bytes of `file` at `rev` (for a symbolic link, its target text), or null when the revision has no
 * such file. A Buffer is the path's bytes as git stores them; the name goes to git on stdin, so any
 * bytes reach it.
 */
export async function readBlob(repo: Repo, rev: string, file: string | Buffer): Promise<Buffer | null> {
  return (await readBlobs(repo, [rev], file))[0] ?? null;
}

/**
 * The bytes of one file at each of several revisions, in order, from one `git cat-file --batch -z`; null
 * where a revision has no such file or it is not a regular blob. Each answer is a header line (`<oid>
 * <type> <size>`, or `<name> missing`) then, for a found object, its bytes and a line break.
 */
export async function readBlobs(repo: Repo, revs: readonly string[], file: string | Buffer): Promise<(Buffer | null)[]> {
  if (revs.length === 0) return [];
  const path = typeof file === "string" ? Buffer.from(file, "utf8") : file;
  // A `missing` answer repeats the name, so a path holding a line break would shift the later answers.
  if (revs.length > 1 && path.includes(10)) {
    const one: (Buffer | null)[] = [];
    for (const rev of revs) one.push((await readBlobs(repo, [rev], path))[0] ?? null);
    return one;
  }
  const input = Buffer.concat(revs.flatMap((rev) => [Buffer.from(`${rev}:`, "utf8"), path, Buffer.alloc(1)]));
  const out = (await repo.run(["cat-file", "--batch", "-z"], { input })).stdout;
  const blobs: (Buffer | null)[] = [];
  let at = 0;
  for (let i = 0; i < revs.length; i++) {
    const eol = out.indexOf(10, at);
    if (eol === -1) return [...blobs, ...revs.slice(i).map(() => null)];
    const header = /^[0-9a-f]{40,64} (\w+) (\d+)$/.exec(out.toString("latin1", at, eol));
    if (!header) {
      blobs.push(null);
      at = eol + 1;
      continue;
    }
    const start = eol + 1;
    const size = Number(header[2]);
    blobs.push(header[1] === "blob" ? out.subarray(start, start + size) : null);
    at = start + size + 1;
  }
  return blobs;
}

/** Every file path of the tree of `rev`, in git's order. */
export async function listFiles(repo: Repo, rev: string): Promise<string[]> {
  const out = await repo.run(["ls-tree", "-r", "-z", "--name-only", rev]);
  return out.stdout.toString("utf8").split("\0").filter(Boolean);
}

/**
 * The number of lines at `rev` that match `pattern` (a regular expression as `git grep -e` reads it),
 * over the text files the pathspecs select, in one `git grep`.
 */
export async function countMatchingLines(repo: Repo, rev: string, pattern: string, pathspecs: readonly string[]): Promise<number> {
  const r = await repo.run(["grep", "--count", "-I", "-z", "-e", pattern, rev, "--", ...pathspecs], { okCodes: [0, 1] });
  let total = 0;
  for (const line of r.stdout.toString("utf8").split("\n")) {
    const nul = line.lastIndexOf("\0");
    if (nul !== -1) total += Number(line.slice(nul + 1)) || 0;
  }
  return total;
}

/** One path that differs between two trees (no rename detection), as `git diff-tree --raw` gives it. */
export interface TreeChange {
  path: string;
  /** A (added), D (deleted), M (modified), T (type changed). */
  status: string;
  /** "000000" where the path is absent. */
  oldMode: string;
  newMode: string;
  oldOid: string;
  newOid: string;
}

/**
 * Every path that differs between the trees of `from` and `to`, recursively, in git's (byte) order.
 * `env` lets git read objects of a private store (a re-merge's trees).
 */
export async function treeChanges(repo: Repo, from: string, to: string, env?: Record<string, string>): Promise<TreeChange[]> {
  const changes: TreeChange[] = [];
  let meta: string[] | null = null;
  for await (const token of repo.stream(["diff-tree", "-r", "-z", "--no-renames", "--raw", from, to], { env })) {
    if (meta === null) {
      if (token.startsWith(":")) meta = token.slice(1).split(" ");
      continue;
    }
    const [oldMode = "", newMode = "", oldOid = "", newOid = "", status = "M"] = meta;
    changes.push({ path: token, status: status.charAt(0), oldMode, newMode, oldOid, newOid });
    meta = null;
  }
  return changes;
}

/** A file of a tree or the index: git's mode and the blob's id. */
interface TreeEntry {
  mode: string;
  oid: string;
}

/** Splits NUL-separated `<mode> <type-or-oid> <oid-or-stage>\t<path>` records into a map by path notation. */
function entriesOf(out: Buffer, pick: (fields: string[]) => TreeEntry | null): Map<string, TreeEntry> {
  const entries = new Map<string, TreeEntry>();
  for (let at = 0; at < out.length; ) {
    const end = out.indexOf(0, at);
    const record = out.subarray(at, end === -1 ? out.length : end);
    at = end === -1 ? out.length : end + 1;
    const tab = record.indexOf(0x09);
    if (tab === -1) continue;
    const entry = pick(record.toString("latin1", 0, tab).split(" "));
    if (entry) entries.set(showPath(record.subarray(tab + 1)), entry);
  }
  return entries;
}

/** Every file of the tree of `rev` (links included, submodules left out), by path notation. */
export async function treeEntries(repo: Repo, rev: string): Promise<Map<string, TreeEntry>> {
  const out = (await repo.run(["ls-tree", "-r", "-z", "--full-tree", rev])).stdout;
  return entriesOf(out, ([mode = "", type = "", oid = ""]) => (type === "blob" ? { mode, oid } : null));
}

/** The merged (stage 0) files of the index, by path notation; conflicted paths are left out. */
export async function stagedEntries(repo: Repo): Promise<Map<string, TreeEntry>> {
  const out = (await repo.run(["ls-files", "-s", "-z"])).stdout;
  return entriesOf(out, ([mode = "", oid = "", stage = ""]) => (stage === "0" && mode !== "160000" ? { mode, oid } : null));
}
