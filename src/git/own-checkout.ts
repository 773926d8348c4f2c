import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { headBranch, identLine } from "./commit-write.js";
import type { IndexRecord } from "./index-file.js";
import { indexFileBytes, indexOrder } from "./index-write.js";
import { replaceThroughLock } from "./lock-file.js";
import { writesObjects } from "./object-write.js";
import type { Repo } from "./repo.js";
import type { GitObject } from "./catfile.js";
import { parseTree, type TreeObjectEntry } from "./treewalk.js";

/*
 * The first checkout of a tool-only sandbox (`git checkout -q -B BRANCH COMMIT` in gitgood's own git
 * directory, fresh from `initOwnSandboxRepo`, with git's sparse checkout on) written without git. With no
 * pattern git writes no file of the work tree: it writes the index (every file of the commit's tree,
 * skip-worktree, no stat data), its cache of the trees (the `TREE` extension), the branch and the reflog
 * lines, and so does this, byte for byte. With patterns naming files (ICC's), the files they name are
 * written too, and the checkout can go on to another tree as `checkoutTreeOnly` does. Anything else (a
 * full work tree, a repository that is not fresh, a setting this writer does not know, a tree git would
 * refuse or store otherwise) is left to git.
 */

const OID = /^[0-9a-f]{40}$/;
const ZERO = "0".repeat(40);
const SKIP_WORKTREE = 0x4000;
const TREE_MODE = "040000";
/** The modes an index keeps as a tree holds them (git rewrites any other mode of a file, and a submodule is left to it). */
const FILE_MODES = new Set(["100644", "100755", "120000"]);
/**
 * Environment that would make git write another index, identity, date or reflog message, or read other
 * settings (gitgood's own handles set none of them: a sandbox's adds only its own git directory, work
 * tree, an empty global config and no editor).
 */
const ENV_OVERRIDES = [
  "GIT_INDEX_FILE",
  "GIT_INDEX_VERSION",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  "GIT_COMMITTER_DATE",
  "GIT_REFLOG_ACTION",
  "GIT_TEST_SPLIT_INDEX",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
];

/** The settings this writer knows, with the value it needs where the value changes what git writes (null: any value). */
const KNOWN_SETTINGS = new Map<string, string | null>([
  ["core.repositoryformatversion", "0"],
  ["core.filemode", "true"],
  ["core.bare", "false"],
  ["core.logallrefupdates", "true"],
  ["core.autocrlf", "false"],
  ["core.safecrlf", null],
  ["core.quotepath", null],
  ["core.sparsecheckout", "true"],
  ["core.hookspath", os.devNull],
  ["gc.auto", null],
  ["commit.gpgsign", null],
  ["merge.conflictstyle", null],
  ["rerere.enabled", null],
  ["advice.detachedhead", null],
  ["user.name", null],
  ["user.email", null],
]);

/** The settings of a config file of the plain form gitgood writes (`[section]`, `\tkey = value`), keys lower-cased; null for any other form. */
function plainSettings(text: string): Map<string, string> | null {
  const settings = new Map<string, string>();
  let section: string | null = null;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const head = /^\[([A-Za-z0-9-]+)\]$/.exec(line);
    if (head) {
      section = (head[1] as string).toLowerCase();
      continue;
    }
    const entry = /^\t([A-Za-z][A-Za-z0-9-]*) = ([^"\\;#\s](?:[^"\\;#]*[^"\\;#\s])?)$/.exec(line);
    if (!entry || section === null) return null;
    const key = `${section}.${(entry[1] as string).toLowerCase()}`;
    if (settings.has(key)) return null;
    settings.set(key, entry[2] as string);
  }
  return settings;
}

/**
 * The settings of gitgood's own git directory `gitDir` when they are only those this writer knows, with
 * the values it needs, and no environment changes what git writes; null otherwise (git is then asked).
 */
export function knownSettings(gitDir: string): Map<string, string> | null {
  for (const name of ENV_OVERRIDES) if (process.env[name] !== undefined) return null;
  let settings: Map<string, string> | null;
  try {
    settings = plainSettings(readFileSync(path.join(gitDir, "config"), "utf8"));
  } catch {
    return null;
  }
  if (settings === null) return null;
  for (const [key, value] of settings) {
    const needed = KNOWN_SETTINGS.get(key);
    if (needed === undefined || (needed !== null && value.toLowerCase() !== needed.toLowerCase())) return null;
  }
  for (const [key, value] of KNOWN_SETTINGS) if (value !== null && settings.get(key)?.toLowerCase() !== value.toLowerCase()) return null;
  return settings;
}

/** The identity git's reflog lines carry under `settings` now (`name <email> seconds zone`); null when git would take it otherwise. */
function reflogIdentity(settings: Map<string, string>): string | null {
  const now = new Date();
  const offset = -now.getTimezoneOffset();
  const zone = `${offset < 0 ? "-" : "+"}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, "0")}${String(Math.abs(offset) % 60).padStart(2, "0")}`;
  return identLine({ name: settings.get("user.name") ?? "", email: settings.get("user.email") ?? "", date: `${Math.floor(now.getTime() / 1000)} ${zone}` });
}

/** Whether `p` is absent (nothing at all there, not even a link). */
export function absent(p: string): boolean {
  try {
    lstatSync(p);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}

/** Whether `p` is a folder itself (not a link to one). */
export function isRealDir(p: string | Buffer): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Whether `gitDir` is as `initOwnSandboxRepo` leaves a tool-only sandbox's: HEAD on `ref` not yet made, no index, no log, and an empty work tree. */
function fresh(gitDir: string, workDir: string, ref: string): boolean {
  if (!isRealDir(path.join(gitDir, "refs", "heads")) || !isRealDir(workDir) || readdirSync(workDir).length > 0) return false;
  for (const name of ["index", "index.lock", "packed-refs", "logs", "ORIG_HEAD", "MERGE_HEAD", ref]) if (!absent(path.join(gitDir, name))) return false;
  return true;
}

/** Characters `checkOutOnly` escapes in a pattern (sparse.ts): unescaped, each would be a wildcard or a form git reads otherwise. */
const PATTERN_SPECIAL = new Set(["\\", "*", "?", "[", "]", "!", "#", " "]);

/**
 * The paths the sparse checkout's patterns file of `gitDir` names, when it holds only patterns of the form
 * `checkOutOnly` writes (`/` and one path exactly, special characters escaped): none for an empty file,
 * null for any other pattern or file.
 */
export function exactPatterns(gitDir: string): Set<string> | null {
  const file = path.join(gitDir, "info", "sparse-checkout");
  let text: string;
  try {
    if (!lstatSync(file).isFile()) return null;
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const paths = new Set<string>();
  const lines = text.split("\n");
  if (lines.pop() !== "") return null;
  for (const line of lines) {
    if (!line.startsWith("/") || line.length < 2) return null;
    let name = "";
    for (let i = 1; i < line.length; i++) {
      const c = line.charAt(i);
      if (c === "\\") {
        const next = line.charAt(++i);
        if (!PATTERN_SPECIAL.has(next)) return null;
        name += next;
      } else if (PATTERN_SPECIAL.has(c) || c === "\r") {
        return null;
      } else {
        name += c;
      }
    }
    paths.add(name);
  }
  return paths;
}

/** Whether a sparse checkout of exactly `patterns` writes `name`: it or a folder above it is named (a pattern that names a folder takes all of it). */
function included(name: string, patterns: ReadonlySet<string>): boolean {
  if (patterns.size === 0) return false;
  for (let end = name.indexOf("/"); end !== -1; end = name.indexOf("/", end + 1)) if (patterns.has(name.slice(0, end))) return true;
  return patterns.has(name);
}

/**
 * Whether git checks out the tree entry `name` as it is (bytes as latin1): no `.`, `..`, `.git` or a name
 * NTFS takes for it (git's core.protectNTFS is on everywhere), no backslash; a link is not named as git's
 * own files are (`.gitmodules`, `.mailmap` and their short NTFS names).
 */
export function plainName(name: string, mode: string): boolean {
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0") || name.includes("\\")) return false;
  if (/^\.git(?![A-Za-z0-9_-])/i.test(name) || /^git~/i.test(name)) return false;
  return mode !== "120000" || !(/^\.(git|mailmap)/i.test(name) || name.includes("~"));
}

/** A node of git's cache of trees: a folder's name, how many index entries lie below it (-1: not known), its tree and its folders. */
export interface CachedTree {
  name: Buffer;
  entries: number;
  oid: string;
  folders: CachedTree[];
}

/** The cache of trees as the `TREE` extension stores it: each folder (entries -1: no tree), then its folders shortest name first (cache-tree.c's order). */
export function treeExtension(root: CachedTree): Buffer {
  const parts: Buffer[] = [];
  const write = (node: CachedTree): void => {
    parts.push(node.name, Buffer.from(`\0${node.entries} ${node.folders.length}\n`));
    // A folder whose tree git must write again (a conflict below it) is kept without a tree.
    if (node.entries >= 0) parts.push(Buffer.from(node.oid, "hex"));
    const order = [...node.folders].sort((a, b) => a.name.length - b.name.length || Buffer.compare(a.name, b.name));
    order.forEach(write);
  };
  write(root);
  const data = Buffer.concat(parts);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(data.length);
  return Buffer.concat([Buffer.from("TREE"), size, data]);
}

/** The stat data git leaves on an entry it did not write to the work tree: zeros but the mode. */
export function unwrittenStat(mode: string): Buffer {
  let stat = unwrittenStats.get(mode);
  if (stat === undefined) {
    stat = Buffer.alloc(40);
    stat.writeUInt32BE(parseInt(mode, 8), 24);
    unwrittenStats.set(mode, stat);
  }
  return stat;
}

/** The trees a sandbox's writers have read through its reader, parsed, by id (a tree never changes), and how many bytes they held. */
const treeMemo = new WeakMap<Repo, { byOid: Map<string, TreeObjectEntry[]>; bytes: number }>();
/** The most tree bytes kept per repository handle. */
const TREE_MEMO_BYTES = 16 * 1024 * 1024;

function treesRead(repo: Repo): Map<string, TreeObjectEntry[]> {
  return treeMemo.get(repo)?.byOid ?? new Map();
}

/** The entries of `object` when it is the tree `oid` (kept for the next walk of the same handle), else null. */
function treeRead(repo: Repo, oid: string, object: GitObject | null): TreeObjectEntry[] | null {
  if (object?.type !== "tree" || object.oid !== oid) return null;
  let entries: TreeObjectEntry[];
  try {
    entries = parseTree(object.content, 20);
  } catch {
    return null;
  }
  let memo = treeMemo.get(repo);
  if (!memo) treeMemo.set(repo, (memo = { byOid: new Map(), bytes: 0 }));
  if (memo.bytes + object.content.length <= TREE_MEMO_BYTES) {
    memo.byOid.set(oid, entries);
    memo.bytes += object.content.length;
  }
  return entries;
}

/** One 40-byte stat field per mode: entries share it (it is only ever read). */
const unwrittenStats = new Map<string, Buffer>();

/**
 * Every file of `tree` as a skip-worktree index entry and the cache of its trees, read through the
 * repository's long-lived reader one level of folders at a time; null where git must check it out (a
 * submodule, a mode or name git changes or refuses, a tree out of git's order).
 */
export async function readWholeTree(repo: Repo, tree: string): Promise<{ records: IndexRecord[]; cache: CachedTree } | null> {
  const reader = repo.reader;
  if (!reader) return null;
  const records: IndexRecord[] = [];
  const root: CachedTree = { name: Buffer.alloc(0), entries: 0, oid: tree, folders: [] };
  let level: { node: CachedTree; prefix: Buffer; chain: CachedTree[] }[] = [{ node: root, prefix: Buffer.alloc(0), chain: [root] }];
  while (level.length > 0) {
    const known = treesRead(repo);
    const objects = await Promise.all(level.map(async (l) => known.get(l.node.oid) ?? treeRead(repo, l.node.oid, await reader.read(l.node.oid))));
    const next: typeof level = [];
    for (const [i, entries] of objects.entries()) {
      const { node, prefix, chain } = level[i] as (typeof level)[number];
      if (entries === null) return null;
      for (const [j, e] of entries.entries()) {
        const before = entries[j - 1];
        if (before !== undefined && !(before.key < e.key)) return null;
        const latin1 = e.mode === TREE_MODE ? e.key.slice(0, -1) : e.key;
        if (!plainName(latin1, e.mode)) return null;
        const nameBytes = Buffer.from(latin1, "latin1");
        const full = Buffer.concat([prefix, nameBytes]);
        if (e.mode === TREE_MODE) {
          const folder: CachedTree = { name: nameBytes, entries: 0, oid: e.oid, folders: [] };
          node.folders.push(folder);
          next.push({ node: folder, prefix: Buffer.concat([full, Buffer.from("/")]), chain: [...chain, folder] });
          continue;
        }
        if (!FILE_MODES.has(e.mode)) return null;
        for (const c of chain) c.entries++;
        records.push({ path: full.toString("utf8"), name: full, mode: e.mode, oid: e.oid, stage: 0, stat: unwrittenStat(e.mode), assumeValid: false, extended: SKIP_WORKTREE });
      }
    }
    level = next;
  }
  return { records, cache: root };
}

/** Makes each folder of `parts` (names, or their bytes) below `base` (a real folder), never going through a link; false when one is not a real folder. */
export function makeRealFolders(base: string, parts: readonly (string | Buffer)[]): boolean {
  let at = Buffer.from(base);
  for (const part of parts) {
    at = Buffer.concat([at, Buffer.from("/"), typeof part === "string" ? Buffer.from(part) : part]);
    try {
      mkdirSync(at);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") return false;
    }
    if (!isRealDir(at)) return false;
  }
  return true;
}

/** Writes a new file `file` with `content`, never through a link or over anything there (O_EXCL); `mode` before the umask. */
export function writeNewFile(file: string | Buffer, content: string | Buffer, mode = 0o666): void {
  const fd = openSync(file, "wx", mode);
  try {
    writeSync(fd, typeof content === "string" ? Buffer.from(content) : content);
  } finally {
    closeSync(fd);
  }
}

/** The commit each handle's checkout here was made at, and the bytes of the index it wrote. */
const written = new WeakMap<Repo, { commit: string; index: Buffer }>();

/** What `checkoutWithoutGit` wrote through `repo`: the commit and the index file's bytes (undefined where git checked out). */
export function writtenCheckout(repo: Repo): { commit: string; index: Buffer } | undefined {
  return written.get(repo);
}

/** Where a checkout goes on to: a tree the work tree is to hold, and the file its index is written to (`checkoutTreeOnly`). */
interface TreeAfter {
  tree: string;
  treeIndex: string;
}

/**
 * Does what `git checkout -q -B BRANCH COMMIT` does on a fresh tool-only sandbox of gitgood's own git
 * directory, without git: the index of the commit's tree, its cache of trees, the branch made at the
 * commit, and the reflog lines (`branch: Created from COMMIT` in the branch's and HEAD's, then
 * `checkout: moving from BRANCH to BRANCH` in HEAD's). Every entry is skip-worktree but those the
 * sparse checkout's patterns name (each one path exactly, as `checkOutOnly` writes them), whose files are
 * written. With `then`, it also does what `checkoutTreeOnly(then.tree, then.treeIndex)` does next: the
 * files the patterns name are written as that tree holds them (never the commit's first) and its index
 * goes to `then.treeIndex`. Without patterns the files are byte for byte git's; an entry whose file is
 * written has no stat data (as after `git read-tree`: git compares the file's content, so it reads the
 * same index), as git reads it. Returns false, with nothing written, where git must do it (see the file's
 * comment; with patterns also a link among the files, an attributes file, a name that is not UTF-8).
 */
export async function checkoutWithoutGit(repo: Repo, branch: string, commit: string, then?: TreeAfter): Promise<boolean> {
  const gitDir = repo.gitDir;
  const ref = `refs/heads/${branch}`;
  if (!repo.ownGitDir || !writesObjects(gitDir) || !OID.test(commit) || headBranch(gitDir) !== ref) return false;
  if (!fresh(gitDir, repo.dir, ref) || (then !== undefined && (!OID.test(then.tree) || !absent(then.treeIndex)))) return false;
  const patterns = exactPatterns(gitDir);
  const settings = knownSettings(gitDir);
  const who = settings === null ? null : reflogIdentity(settings);
  if (who === null || patterns === null) return false;
  // Asked last: the reader is a process, started for a checkout gitgood writes and not for one it leaves to git (a full work tree).
  const reader = repo.reader;
  if (reader === null) return false;
  const object = await reader.read(commit);
  const tree = object?.type === "commit" ? /^tree ([0-9a-f]{40})\n/.exec(object.content.toString("latin1"))?.[1] : undefined;
  if (object?.oid !== commit || tree === undefined) return false;
  const whole = await readWholeTree(repo, tree);
  const after = then === undefined ? whole : await readWholeTree(repo, then.tree);
  if (whole === null || after === null) return false;
  const files = after.records.filter((r) => included(r.path, patterns));
  if (patterns.size > 0) {
    const all = [...whole.records, ...after.records];
    if (all.some((r) => !Buffer.from(r.path, "utf8").equals(r.name) || /(?:^|\/)\.gitattributes$/.test(r.path))) return false;
    if (files.some((r) => r.mode === "120000")) return false;
  }
  const texts = await Promise.all(files.map((r) => reader.read(r.oid)));
  if (texts.some((t) => t?.type !== "blob")) return false;
  const flagged = (records: IndexRecord[]): IndexRecord[] => records.map((r) => (included(r.path, patterns) ? { ...r, extended: 0 } : r)).sort(indexOrder);
  const folders = branch.split("/").slice(0, -1);
  if (!makeRealFolders(gitDir, ["refs", "heads", ...folders]) || !makeRealFolders(gitDir, ["logs", "refs", "heads", ...folders])) return false;
  // From here on the sandbox is written; a folder of the work tree that turns out not to be one is a fault, not a case for git.
  for (const [i, r] of files.entries()) {
    if (!makeRealFolders(repo.dir, r.path.split("/").slice(0, -1))) throw new GitGoodError("INTERNAL", `a folder of ${r.path} in the sandbox's work tree is not a folder`);
    writeNewFile(path.join(repo.dir, r.path), texts[i]?.content ?? Buffer.alloc(0), r.mode === "100755" ? 0o777 : 0o666);
  }
  if (then !== undefined) writeNewFile(then.treeIndex, indexFileBytes(flagged(after.records), [treeExtension(after.cache)]));
  const index = indexFileBytes(flagged(whole.records), [treeExtension(whole.cache)]);
  if (!replaceThroughLock(path.join(gitDir, "index"), index)) throw new GitGoodError("INTERNAL", "the sandbox's index is locked");
  written.set(repo, { commit, index });
  if (!replaceThroughLock(path.join(gitDir, ...ref.split("/")), `${commit}\n`)) throw new GitGoodError("INTERNAL", `the sandbox's ${ref} is locked`);
  // HEAD is on the branch, so the branch's creation is also a line of HEAD's log.
  const created = `${ZERO} ${commit} ${who}\tbranch: Created from ${commit}\n`;
  writeNewFile(path.join(gitDir, "logs", ...ref.split("/")), created);
  writeNewFile(path.join(gitDir, "logs", "HEAD"), `${created}${commit} ${commit} ${who}\tcheckout: moving from ${branch} to ${branch}\n`);
  return true;
}
