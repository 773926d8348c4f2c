import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readFileSync, readlinkSync, rmSync, type BigIntStats } from "node:fs";
import path from "node:path";
import type { Person } from "./commits.js";
import { headBranch, identLine, moveBranch, stripSpace, writeCommitObject } from "./commit-write.js";
import { readIndexContent, type IndexRecord } from "./index-file.js";
import { writeIndexFile } from "./index-write.js";
import { writeLooseObject, writesObjects } from "./object-write.js";
import type { Repo } from "./repo.js";
import { attributesKeepBytes } from "./stored-bytes.js";
import { writeTreeOfEntries } from "./tree-write.js";

/*
 * Staging and committing in gitgood's own git directory (a sandbox's `private/git`, which no agent
 * writes) without starting git: the index, loose objects and the branch ref are written in git's own
 * formats. Each function does only what it can do exactly as git would, and otherwise returns false or
 * null with nothing changed, and the caller runs git itself (which also gives git's own refusals).
 */

const SLASH = 0x2f;
const INTENT_TO_ADD = 0x2000;
const OID = /^[0-9a-f]{40}$/;
/** Files `git commit` removes once a merge is committed (sequencer.c's remove_merge_branch_state, and commit.c). */
const MERGE_STATE = ["MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "MERGE_RR", "AUTO_MERGE", "SQUASH_MSG"];
/** States in which `git commit` records something else than the index and HEAD (a cherry-pick's author, a revert). */
const OTHER_STATE = ["CHERRY_PICK_HEAD", "REVERT_HEAD"];

/** Whether gitgood may write the git directory of `repo` itself: its own, SHA-1, with a long-lived reader to ask what the store holds. */
function writable(repo: Repo): boolean {
  return repo.ownGitDir && repo.reader !== null && writesObjects(repo.gitDir);
}

/** Settings under which `update-index` takes a file otherwise than by its bytes and its executable bit (fail-safe: any section counts). */
const CHECKIN_SETTING = /^(?:filemode=false|symlinks=false|autocrlf=(?!false$)|attributesfile=|ignorestat=)/;

/** Whether `update-index` stores a file of `gitDir`'s work tree as its plain bytes (no attributes file of the git directory but gitgood's own that converts nothing, no setting that converts). */
function plainCheckin(gitDir: string): boolean {
  if (!attributesKeepBytes(gitDir)) return false;
  let config: string;
  try {
    config = readFileSync(path.join(gitDir, "config"), "utf8");
  } catch {
    return false;
  }
  return !config.split("\n").some((l) => CHECKIN_SETTING.test(l.replace(/\s+/g, "").toLowerCase()));
}

function lstatOrNull(p: Buffer): BigIntStats | null {
  try {
    return lstatSync(p, { bigint: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

/**
 * The bytes of the regular file `file` was when `seen` was taken, read without following a link: null (git
 * then stages it) when it is no longer that file (replaced by a link or another file in between).
 */
function readUnfollowed(file: Buffer, seen: BigIntStats): Buffer | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    if (!st.isFile() || st.ino !== seen.ino || st.dev !== seen.dev) return null;
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The 40 bytes of stat data git keeps for a file: ctime, mtime (seconds, nanoseconds), dev, ino, mode, uid, gid, size, each cut to 32 bits. */
function statBytes(st: BigIntStats, mode: number): Buffer {
  const b = Buffer.alloc(40);
  const low = (n: bigint): number => Number(n & 0xffffffffn);
  const fields = [st.ctimeNs / 1000000000n, st.ctimeNs % 1000000000n, st.mtimeNs / 1000000000n, st.mtimeNs % 1000000000n, st.dev, st.ino, BigInt(mode), st.uid, st.gid, st.size];
  fields.forEach((v, i) => b.writeUInt32BE(low(v), i * 4));
  return b;
}

/** What a path of the work tree is now, for `update-index --add --remove`. */
type Found = { kind: "gone" } | { kind: "entry"; record: IndexRecord; content: Buffer };

/**
 * The path `name` of the work tree `workDir` as `update-index` would stage it: every folder on the way a
 * real folder (never a link: git refuses a path beyond a link, and gitgood then leaves it to git), no
 * `.gitattributes` on the way (its attributes could change the bytes git stores), and the path itself a
 * regular file, a symbolic link (its target is what is stored; nothing is followed) or absent.
 */
function find(workDir: string, name: Buffer, parts: string[]): Found | null {
  // Paths as bytes: a name that is not UTF-8 reaches the file system as git stores it.
  const inWorkTree = (rel: string): Buffer => Buffer.concat([Buffer.from(`${workDir}/`), Buffer.from(rel, "latin1")]);
  const attributes = (folder: string): boolean => lstatOrNull(inWorkTree(folder === "" ? ".gitattributes" : `${folder}/.gitattributes`)) !== null;
  for (let i = 1; i < parts.length; i++) {
    const folder = parts.slice(0, i).join("/");
    if (attributes(parts.slice(0, i - 1).join("/"))) return null;
    const st = lstatOrNull(inWorkTree(folder));
    if (st === null) return { kind: "gone" };
    if (!st.isDirectory()) return null;
  }
  if (attributes(parts.slice(0, -1).join("/"))) return null;
  const file = inWorkTree(parts.join("/"));
  const st = lstatOrNull(file);
  if (st === null) return { kind: "gone" };
  let mode: number;
  let content: Buffer;
  if (st.isSymbolicLink()) {
    mode = 0o120000;
    content = readlinkSync(file, { encoding: "buffer" });
  } else if (st.isFile()) {
    mode = st.mode & 0o100n ? 0o100755 : 0o100644;
    const read = readUnfollowed(file, st);
    if (read === null) return null;
    content = read;
  } else {
    return null;
  }
  const record = { path: name.toString("utf8"), name, mode: mode.toString(8), oid: "", stage: 0, stat: statBytes(st, mode), assumeValid: false, extended: 0 };
  return { kind: "entry", record, content };
}

/** The components of a path git would take, as latin1 strings (bytes kept); null for an absolute path, `.`, `..`, `.git` or an empty part. */
function partsOf(name: Buffer): string[] | null {
  const parts = name.toString("latin1").split(String.fromCharCode(SLASH));
  const bad = parts.some((p) => p === "" || p === "." || p === ".." || p.toLowerCase() === ".git" || p.includes("\0"));
  return bad ? null : parts;
}

/**
 * Stages `paths` of the work tree as `git update-index --add --remove -z --stdin` does (an edited or new
 * file or link is added, a path gone is removed, an unmerged path becomes resolved), writing the blobs
 * and the index without git. False, with nothing written, where git must do it: another git directory
 * or object format, an index form the reader does not take, a setting or `.gitattributes` that changes
 * what git stores, a path through a link or to a folder, a sparse or intent-to-add entry, a new path
 * where a file and a folder would meet.
 */
export function stageWithoutGit(repo: Repo, paths: readonly Buffer[]): boolean {
  if (!writable(repo) || !plainCheckin(repo.gitDir)) return false;
  const index = readIndexContent(repo.gitDir);
  if (index === null || index.version > 3) return false;
  let entries = index.entries;
  if (entries.some((e) => e.path === ".gitattributes" || e.path.endsWith("/.gitattributes"))) return false;
  const changes = new Map<string, { name: Buffer; found: Found }>();
  for (const name of paths) {
    const parts = partsOf(name);
    if (parts === null) return false;
    const key = name.toString("latin1");
    const mine = entries.filter((e) => e.name.equals(name));
    if (mine.some((e) => e.extended !== 0)) return false;
    const found = find(repo.dir, name, parts);
    if (found === null) return false;
    if (mine.length === 0 && found.kind === "entry") {
      const inside = Buffer.concat([name, Buffer.from("/")]);
      const folders = parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
      if (entries.some((e) => e.name.subarray(0, inside.length).equals(inside) || folders.includes(e.name.toString("latin1")))) return false;
    }
    changes.set(key, { name, found });
  }
  for (const { name, found } of changes.values()) {
    entries = entries.filter((e) => !e.name.equals(name));
    if (found.kind === "entry") entries.push({ ...found.record, oid: writeLooseObject(repo.gitDir, "blob", found.content) });
  }
  return writeIndexFile(repo.gitDir, entries);
}

interface OwnCommitOptions {
  /** The message as given (`cleanup` says how git takes it). */
  message: string;
  cleanup: "verbatim" | "whitespace";
  author: Person;
  committer: Person;
}

/** The parents `git commit` records: HEAD, and with a merge in progress (`--no-ff`) each commit of MERGE_HEAD; null where git must decide. */
function parentsAfter(gitDir: string, head: string): string[] | null {
  if (OTHER_STATE.some((f) => existsSync(path.join(gitDir, f)))) return null;
  const mergeHead = path.join(gitDir, "MERGE_HEAD");
  if (!existsSync(mergeHead)) return [head];
  const merged = readFileSync(mergeHead, "latin1").split("\n").filter((l) => l !== "");
  let mode = "";
  try {
    mode = readFileSync(path.join(gitDir, "MERGE_MODE"), "latin1");
  } catch {
    return null;
  }
  if (mode !== "no-ff" || merged.length === 0 || !merged.every((l) => OID.test(l))) return null;
  return [head, ...merged];
}

/**
 * Commits the index of `repo` as `git commit -q --no-verify --cleanup=… -F` does with the given people
 * and dates (no hooks, no maintenance), without git: the trees the store lacks and the commit as loose
 * objects, the branch moved through its lock with reflog lines, a merge's state files removed. Returns
 * the new commit, or null with the branch unmoved where git must commit (see `stageWithoutGit`; also a
 * detached HEAD or a first commit, an unmerged or intent-to-add entry, an identity or date git would
 * rewrite, a message git refuses, nothing to commit).
 */
export async function commitWithoutGit(repo: Repo, opts: OwnCommitOptions): Promise<string | null> {
  const reader = repo.reader;
  if (!reader || !writable(repo)) return null;
  const gitDir = repo.gitDir;
  const branch = headBranch(gitDir);
  const author = identLine(opts.author);
  const committer = identLine(opts.committer);
  const message = opts.cleanup === "verbatim" ? opts.message : stripSpace(opts.message);
  if (branch === null || author === null || committer === null || message === "" || message.includes("\0")) return null;
  const index = readIndexContent(gitDir);
  if (index === null || index.entries.some((e) => e.stage !== 0 || (e.extended & INTENT_TO_ADD) !== 0)) return null;
  const head = await reader.read("HEAD");
  if (head?.type !== "commit") return null;
  const parents = parentsAfter(gitDir, head.oid);
  if (parents === null) return null;
  for (const p of parents.slice(1)) if ((await reader.info(p))?.type !== "commit") return null;
  const tree = await writeTreeOfEntries(gitDir, index.entries, async (oid) => (await reader.info(oid))?.type === "tree");
  if (tree === null) return null;
  const headTree = /^tree ([0-9a-f]{40})\n/.exec(head.content.toString("latin1"))?.[1];
  if (parents.length === 1 && tree === headTree) return null;
  const oid = writeCommitObject(gitDir, { tree, parents, author, committer, message });
  if (!moveBranch(gitDir, branch, head.oid, oid, committer, parents.length > 1 ? "commit (merge)" : "commit", message)) return null;
  if (parents.length > 1) for (const f of MERGE_STATE) rmSync(path.join(gitDir, f), { force: true });
  return oid;
}
