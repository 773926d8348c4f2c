import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { privateTempDir, scratchRoot } from "../util/tempdirs.js";
import { at } from "../util/at.js";
import { DiffTreeReader } from "./diff-reader.js";
import type { IndexEntry } from "./index-file.js";
import { writeLooseObject } from "./object-write.js";
import { gitQuotedPath } from "./paths.js";
import { runGit } from "./process.js";
import { writeTreeOfEntries } from "./tree-write.js";

/** A file's bytes under a path relative to a project root, or null when the file does not exist. */
export interface FileBytes {
  path: string;
  bytes: Buffer | null;
  /** Git's mode 100755: the diff shows a mode change against a file without it. */
  executable?: boolean;
}

/**
 * A plain diff for people between two sets of files that live in no common repository (a recorded
 * answer and an agent's result), shown as `a/<path>` and `b/<path>` like a diff of two revisions: byte
 * for byte what `git diff --no-index a b` prints for the two sets written out as folders `a` and `b`.
 * Written as objects in gitgood's own scratch store and read from its long-lived `diff-tree` (no process
 * of its own) where that gives the same bytes: every path plain (no empty, `.`, `..` or `.git` part) and
 * given once per side, no file both removed and added (only then would `--no-index` look for
 * renames), and no more than DIFF_BYTES of files. Otherwise, or when the store fails, the sets are written to a temporary folder and
 * `git diff --no-index` is run on them.
 */
export async function fileSetDiff(before: readonly FileBytes[], after: readonly FileBytes[]): Promise<string> {
  const pairs = pairsOf(before, after);
  const size = [...before, ...after].reduce((sum, f) => sum + (f.bytes?.length ?? 0), 0);
  if (pairs !== null && size <= DIFF_BYTES) {
    const out = await fromStore(pairs);
    if (out !== null) return out;
  }
  return noIndexDiff(before, after);
}

/** One path of the two sets: its file on each side (null where absent). */
interface Pair {
  name: Buffer;
  a: FileBytes | null;
  b: FileBytes | null;
}

/** A path's parts: its bytes split at `/`. */
function parts(name: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let from = 0;
  for (let at = name.indexOf(0x2f); at !== -1; at = name.indexOf(0x2f, from)) {
    out.push(name.subarray(from, at));
    from = at + 1;
  }
  out.push(name.subarray(from));
  return out;
}

/**
 * The order `--no-index` walks two folders in: each folder's names sorted by their bytes, a folder's
 * files below its name (so `x/y` comes before `x-z`, where a tree puts `x-z` first).
 */
function walkOrder(a: Pair, b: Pair): number {
  const pa = parts(a.name);
  const pb = parts(b.name);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const c = Buffer.compare(pa[i] as Buffer, pb[i] as Buffer);
    if (c !== 0) return c;
  }
  return pa.length - pb.length;
}

const PLAIN_PART = (p: Buffer): boolean => p.length > 0 && !p.equals(Buffer.from(".")) && !p.equals(Buffer.from("..")) && p.toString("latin1").toLowerCase() !== ".git";

/** The paths of the two sets in `--no-index`'s order, or null where the store cannot give `--no-index`'s bytes. */
function pairsOf(before: readonly FileBytes[], after: readonly FileBytes[]): Pair[] | null {
  const byName = new Map<string, Pair>();
  for (const [files, side] of [[before, "a"], [after, "b"]] as const) {
    const seen = new Set<string>();
    for (const f of files) {
      const name = Buffer.from(f.path, "utf8");
      if (name.includes(0) || !parts(name).every(PLAIN_PART) || seen.has(f.path)) return null;
      seen.add(f.path);
      if (f.bytes === null) continue;
      const pair = byName.get(f.path) ?? { name, a: null, b: null };
      pair[side] = f;
      byName.set(f.path, pair);
    }
  }
  const pairs = [...byName.values()];
  if (pairs.some((p) => p.b === null) && pairs.some((p) => p.a === null)) return null;
  return pairs.sort(walkOrder);
}

/** gitgood's own bare store for `fileSetDiff`, with its long-lived `diff-tree`: one per process, made when first needed. */
interface Scratch {
  gitDir: string;
  reader: DiffTreeReader;
  remove: () => void;
  /** Objects written so far: past STORE_OBJECTS the store is replaced by a fresh one. */
  written: number;
  /** Bytes of files written so far: past STORE_BYTES the store is replaced by a fresh one. */
  bytes: number;
  /** Diffs being read from it: a store replaced is removed when the last ends. */
  users: number;
  retired: boolean;
}

let scratch: Scratch | null = null;
const STORE_OBJECTS = 20_000;
/**
 * The store may live in memory (the scratch root) and holds an agent's files, which the agent sizes: one
 * diff of more than DIFF_BYTES of files goes to `--no-index` on disk instead, and a store that took in
 * STORE_BYTES is replaced, so a process keeps at most about their sum there.
 */
const DIFF_BYTES = 16 * 1024 * 1024;
const STORE_BYTES = 64 * 1024 * 1024;

/**
 * Options of `--no-index`'s output (its defaults: three lines of context, prefixes `a/` and `b/`), with
 * full object ids, cut to `--no-index`'s seven hex digits afterwards (a store's own abbreviations grow when
 * two of its objects share a prefix).
 */
const OPTIONS = ["-p", "--no-color", "--no-ext-diff", "--no-textconv", "--full-index", "--src-prefix=a/", "--dst-prefix=b/"];

/** Ends a replaced store's process and removes it once no diff reads from it. */
function release(s: Scratch): void {
  if (s.retired && s.users === 0) void s.reader.close().then(s.remove, s.remove);
}

/** The process's scratch store, made now if there is none (or the last one failed or is full), taken by one more user. */
function takeScratch(): Scratch {
  if (scratch && !scratch.reader.failed && scratch.written < STORE_OBJECTS && scratch.bytes < STORE_BYTES) {
    scratch.users++;
    return scratch;
  }
  if (scratch) {
    scratch.retired = true;
    release(scratch);
  }
  const { dir, remove } = privateTempDir("gitgood-fileset-", scratchRoot());
  const gitDir = path.join(dir, "git");
  for (const sub of ["objects/info", "objects/pack", "refs/heads"]) mkdirSync(path.join(gitDir, sub), { recursive: true });
  writeFileSync(path.join(gitDir, "HEAD"), "ref: refs/heads/main\n");
  // Bare: no work tree, so no attributes file but the user's own is read, as `--no-index` outside a repository does.
  writeFileSync(path.join(gitDir, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = true\n");
  const env = { GIT_DIR: gitDir, GIT_CONFIG_GLOBAL: os.devNull };
  scratch = { gitDir, reader: new DiffTreeReader(OPTIONS, gitDir, env), remove, written: 0, bytes: 0, users: 1, retired: false };
  return scratch;
}

/** The tree holding only `file` (the empty tree for none), written with its blob into the store. */
async function singleFileTree(s: Scratch, name: Buffer, file: FileBytes | null): Promise<string | null> {
  const entries: IndexEntry[] = [];
  if (file !== null && file.bytes !== null) {
    const oid = writeLooseObject(s.gitDir, "blob", file.bytes);
    s.bytes += file.bytes.length;
    entries.push({ path: file.path, name, mode: file.executable === true ? "100755" : "100644", oid, stage: 0 });
  }
  s.written += parts(name).length + 1;
  return writeTreeOfEntries(s.gitDir, entries, (oid) => Promise.resolve(existsSync(path.join(s.gitDir, "objects", oid.slice(0, 2), oid.slice(2)))));
}

const FULL_INDEX = /^index ([0-9a-f]{7})[0-9a-f]{33}\.\.([0-9a-f]{7})[0-9a-f]{33}/m;

/** The `diff --git` line of a path `--no-index` prints (latin1, one character per byte), the sides' folders named. */
function headerLine(name: Buffer, from: string, to: string): string {
  const quoted = (side: string): string => Buffer.from(gitQuotedPath(Buffer.concat([Buffer.from(side), name])), "utf8").toString("latin1");
  return `diff --git ${quoted(from)} ${quoted(to)}\n`;
}

/**
 * A path's section of the tree diff (latin1) as `--no-index` prints it: ids cut to seven digits, and for a
 * file on one side only both names on its side's folder (`--no-index` names the missing side after the other).
 * Null when the section does not start with the line expected.
 */
function sectionAsNoIndex(pair: Pair, section: string): string | null {
  if (section === "") return section;
  const tree = headerLine(pair.name, "a/", "b/");
  if (!section.startsWith(tree)) return null;
  const side = pair.a === null ? "b/" : pair.b === null ? "a/" : null;
  const head = side === null ? tree : headerLine(pair.name, side, side);
  return head + section.slice(tree.length).replace(FULL_INDEX, "index $1..$2");
}

/** `fileSetDiff` from the scratch store: one tree pair per path, in `--no-index`'s order; null when the store fails. */
async function fromStore(pairs: readonly Pair[]): Promise<string | null> {
  const s = takeScratch();
  const asked: Promise<Buffer>[] = [];
  const heads: string[] = [];
  try {
    for (const p of pairs) {
      const [ta, tb] = [await singleFileTree(s, p.name, p.a), await singleFileTree(s, p.name, p.b)];
      if (ta === null || tb === null) return null;
      heads.push(`${ta} ${tb}\n`);
      asked.push(s.reader.ask([`${ta} ${tb}`]));
    }
    const answers = await Promise.all(asked);
    const sections: Buffer[] = [];
    for (const [i, answer] of answers.entries()) {
      const head = Buffer.from(heads[i] as string);
      if (!answer.subarray(0, head.length).equals(head)) return null;
      const section = sectionAsNoIndex(at(pairs, i), answer.subarray(head.length).toString("latin1"));
      if (section === null) return null;
      sections.push(Buffer.from(section, "latin1"));
    }
    return Buffer.concat(sections).toString("utf8");
  } catch {
    await Promise.allSettled(asked);
    return null;
  } finally {
    s.users--;
    release(s);
  }
}

function writeSide(root: string, files: readonly FileBytes[]): void {
  mkdirSync(root, { recursive: true });
  for (const f of files) {
    const full = path.resolve(root, f.path);
    if (f.bytes === null || !full.startsWith(root + path.sep)) continue;
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, f.bytes, { mode: f.executable === true ? 0o755 : 0o644 });
  }
}

/** `fileSetDiff` by `git diff --no-index` on the two sets written to a temporary folder, removed afterwards. */
async function noIndexDiff(before: readonly FileBytes[], after: readonly FileBytes[]): Promise<string> {
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
