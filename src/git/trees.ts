import { GitGoodError } from "../errors.js";
import { showPath } from "./paths.js";
import type { Repo } from "./repo.js";

/** The tree of a revision. */
export async function treeOf(repo: Repo, rev: string): Promise<string> {
  const info = await repo.reader?.info(`${rev}^{tree}`);
  if (info) return info.oid;
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
  const reader = repo.reader;
  if (reader) {
    const objs = await Promise.all(revs.map((rev) => reader.read(Buffer.concat([Buffer.from(`${rev}:`, "utf8"), path]))));
    return objs.map((o) => (o?.type === "blob" ? o.content : null));
  }
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
export interface TreeEntry {
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

/** One entry of a tree object: its mode as git stores it (`40000` for a tree) and its object id. */
interface RawEntry {
  name: Buffer;
  mode: string;
  oid: string;
}

/** The entries of a tree object, by name (as latin1 text, so any bytes compare exactly). */
async function readTreeObject(repo: Repo, oid: string): Promise<Map<string, RawEntry>> {
  const obj = await repo.reader?.read(oid);
  if (!obj || obj.type !== "tree") throw new GitGoodError("GIT_FAILED", `tree ${oid} cannot be read`, { tree: oid });
  const idBytes = oid.length / 2;
  const out = new Map<string, RawEntry>();
  const raw = obj.content;
  for (let at = 0; at < raw.length; ) {
    const sp = raw.indexOf(0x20, at);
    const nul = raw.indexOf(0, sp);
    if (sp === -1 || nul === -1 || nul + 1 + idBytes > raw.length) throw new GitGoodError("GIT_FAILED", `tree ${oid} is damaged`, { tree: oid });
    const name = raw.subarray(sp + 1, nul);
    out.set(name.toString("latin1"), { name, mode: raw.toString("latin1", at, sp), oid: raw.toString("hex", nul + 1, nul + 1 + idBytes) });
    at = nul + 1 + idBytes;
  }
  return out;
}

const TREE_MODE = "40000";
const SUBMODULE_MODE = "160000";

/** Where two sides of a tree comparison are: a repository and one of its trees (null: the side has nothing there). */
interface TreeSide {
  repo: Repo;
  tree: string | null;
}

async function walkDifferences(a: TreeSide, b: TreeSide, prefix: Buffer, outA: Map<string, TreeEntry>, outB: Map<string, TreeEntry>): Promise<void> {
  const [ea, eb] = await Promise.all([a.tree ? readTreeObject(a.repo, a.tree) : new Map<string, RawEntry>(), b.tree ? readTreeObject(b.repo, b.tree) : new Map<string, RawEntry>()]);
  for (const key of new Set([...ea.keys(), ...eb.keys()])) {
    const x = ea.get(key);
    const y = eb.get(key);
    if (x && y && x.oid === y.oid && x.mode === y.mode) continue;
    const name = (x ?? y)?.name ?? Buffer.alloc(0);
    const full = prefix.length === 0 ? name : Buffer.concat([prefix, Buffer.from("/"), name]);
    const xTree = x?.mode === TREE_MODE ? x.oid : null;
    const yTree = y?.mode === TREE_MODE ? y.oid : null;
    if (xTree !== null || yTree !== null) await walkDifferences({ repo: a.repo, tree: xTree }, { repo: b.repo, tree: yTree }, full, outA, outB);
    if (x && xTree === null && x.mode !== SUBMODULE_MODE) outA.set(showPath(full), { mode: x.mode, oid: x.oid });
    if (y && yTree === null && y.mode !== SUBMODULE_MODE) outB.set(showPath(full), { mode: y.mode, oid: y.oid });
  }
}

/**
 * The files (links included, submodules left out) of two trees, each in its own repository, where the
 * trees differ: every path whose entry is not the same on both sides, with each side's entry where it
 * has one, by path notation as `treeEntries` gives them. Only subtrees that differ are read, through
 * each repository's long-lived reader; null when either has none (the caller lists the trees whole).
 */
export async function differingFiles(
  a: { repo: Repo; tree: string },
  b: { repo: Repo; tree: string },
): Promise<{ a: Map<string, TreeEntry>; b: Map<string, TreeEntry> } | null> {
  if (!a.repo.reader || !b.repo.reader) return null;
  const outA = new Map<string, TreeEntry>();
  const outB = new Map<string, TreeEntry>();
  if (a.tree !== b.tree) await walkDifferences(a, b, Buffer.alloc(0), outA, outB);
  return { a: outA, b: outB };
}
