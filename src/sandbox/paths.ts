import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  writeSync,
  type Stats,
} from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { GitGoodError, type ErrorCode } from "../errors.js";
import { parsePath, showPath } from "../git/paths.js";
import { errnoCode } from "../util/errno.js";

/**
 * Paths an agent names in the project, and the only way scenario tools touch the work tree: nothing
 * here follows a symbolic link. A link is an entry of its own (git stores its target text); reading
 * or writing through one, a link in a parent directory included, is refused, and so is any path into
 * `.git`. Every operation checks each component with lstat right before it acts, opens files with
 * O_NOFOLLOW, and then confirms that the file it opened is the one inside the project.
 */

/** A path in the project: its bytes as git stores them, and its notation (src/git/paths.ts). */
export interface ProjectPath {
  /** The path's bytes, its components joined by `/`. */
  readonly bytes: Buffer;
  /** How agents see it. */
  readonly shown: string;
}

const SLASH = 0x2f;

/** A path from git (its notation, or bytes) as a ProjectPath; no checks, for paths git listed itself. */
export function projectPath(p: string | Buffer): ProjectPath {
  const bytes = typeof p === "string" ? parsePath(p) : p;
  return { bytes, shown: showPath(bytes) };
}

function components(bytes: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const slash = bytes.indexOf(SLASH, at);
    parts.push(bytes.subarray(at, slash === -1 ? bytes.length : slash));
    if (slash === -1) return parts;
    at = slash + 1;
  }
}

function joinComponents(parts: readonly Buffer[]): Buffer {
  return Buffer.concat(parts.flatMap((p, k) => (k === 0 ? [p] : [Buffer.from("/"), p])));
}

function full(root: string, bytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from(path.resolve(root), "utf8"), Buffer.from("/"), bytes]);
}

function refuse(code: ErrorCode, shown: string, why: string): never {
  throw new GitGoodError(code, `path '${shown}' is not allowed: ${why}`, { path: shown });
}

function lstatOrNull(p: Buffer): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/**
 * Fails when a directory on the way to `bytes` is a symbolic link. Stops quietly at the first one
 * that is missing or not a directory (the path then does not exist, which the caller reports).
 */
function checkParents(root: string, bytes: Buffer, shown: string): void {
  const parts = components(bytes);
  for (let i = 1; i < parts.length; i++) {
    const prefix = joinComponents(parts.slice(0, i));
    const st = lstatOrNull(full(root, prefix));
    if (st?.isSymbolicLink()) {
      refuse("SYMLINK_REFUSED", shown, `'${showPath(prefix)}' is a symbolic link, and the tools never go through links`);
    }
    if (!st?.isDirectory()) return;
  }
}

/**
 * Checks a path an agent gave (relative to the project root, in the notation of src/git/paths.ts) and
 * returns it in git's form (components joined by `/`, no `.` or empty ones; outside quotes a
 * backslash also separates). Refused: empty or absolute paths, `..` steps, NUL bytes, the root itself,
 * a `.git` component anywhere (PATH_OUTSIDE), a malformed quoted path (BAD_PATH), and a path with a
 * symbolic link among its directories (SYMLINK_REFUSED). The last component may be anything, a link
 * included: each operation decides what it accepts there.
 */
export function checkRelativePath(root: string, given: string): ProjectPath {
  const fail = (why: string): never => refuse("PATH_OUTSIDE", given, why);
  if (given.trim() === "") fail("it is empty");
  const quoted = given.startsWith('"');
  const bytes = parsePath(given);
  if (bytes.includes(0)) fail("it contains a NUL byte");
  if (bytes[0] === SLASH || (!quoted && (path.win32.isAbsolute(given) || /^[A-Za-z]:/.test(given)))) {
    fail("give a path relative to the project root, not an absolute path");
  }
  const separated = quoted ? bytes : Buffer.from(given.replace(/\\/g, "/"), "utf8");
  const parts = components(separated).filter((p) => p.length > 0 && !p.equals(Buffer.from(".")));
  if (parts.some((p) => p.equals(Buffer.from("..")))) fail("'..' steps out of the project root");
  if (parts.length === 0) fail("it names the project root itself, not a file");
  if (parts.some((p) => p.toString("latin1").toLowerCase() === ".git")) fail("the .git directory is not part of the project");
  const clean = joinComponents(parts);
  const shown = showPath(clean);
  checkParents(root, clean, shown);
  return { bytes: clean, shown };
}

type EntryKind = "file" | "link" | "directory" | "other" | "missing";

/** What the project holds at `p`, without following a link. */
export function entryKind(root: string, p: ProjectPath): EntryKind {
  checkParents(root, p.bytes, p.shown);
  const st = lstatOrNull(full(root, p.bytes));
  if (!st) return "missing";
  if (st.isSymbolicLink()) return "link";
  if (st.isFile()) return "file";
  return st.isDirectory() ? "directory" : "other";
}

function osError(err: unknown, p: ProjectPath, writing: boolean): GitGoodError {
  const code = errnoCode(err);
  if (code === "ELOOP" || code === "EMLINK") {
    return new GitGoodError("SYMLINK_REFUSED", `path '${p.shown}' is not allowed: it is a symbolic link, and the tools never go through links`, { path: p.shown });
  }
  if (code === "ENOENT" || code === "ENOTDIR") return new GitGoodError("NOT_FOUND", `there is no file ${p.shown} in the project`, { path: p.shown });
  if (code === "EISDIR") return new GitGoodError("NOT_A_FILE", `${p.shown} is a directory, not a file`, { path: p.shown });
  const message = err instanceof Error ? err.message : String(err);
  return new GitGoodError(writing ? "WRITE_FAILED" : "READ_FAILED", `cannot ${writing ? "write" : "read"} ${p.shown}: ${message}`, { path: p.shown });
}

/**
 * Confirms that `fd` is the regular file at `p` inside the project (and not one a link swapped in
 * between the checks and the open): the same inode as the entry there now, and on Linux, where the
 * kernel tells, the very path.
 */
function confirmOpened(root: string, fd: number, p: ProjectPath): void {
  const opened = fstatSync(fd);
  if (!opened.isFile()) throw new GitGoodError("NOT_A_FILE", `${p.shown} is not a regular file`, { path: p.shown });
  checkParents(root, p.bytes, p.shown);
  const now = lstatOrNull(full(root, p.bytes));
  const proc = `/proc/self/fd/${fd}`;
  const exact = existsSync(proc) ? readlinkSync(proc, { encoding: "buffer" }).equals(full(realpathSync(root), p.bytes)) : true;
  if (!now || now.dev !== opened.dev || now.ino !== opened.ino || !exact) {
    throw new GitGoodError("SYMLINK_REFUSED", `path '${p.shown}' changed while it was opened; the tools never go through links`, { path: p.shown });
  }
}

/**
 * Removes the file a create made where it must not be (a directory was swapped for a link between
 * the checks and the open). Only Linux tells where that is.
 */
function removeStray(fd: number): void {
  const proc = `/proc/self/fd/${fd}`;
  if (existsSync(proc)) unlinkSync(readlinkSync(proc, { encoding: "buffer" }));
}

function open(root: string, p: ProjectPath, flags: number, mode?: number): number {
  checkParents(root, p.bytes, p.shown);
  try {
    return openSync(full(root, p.bytes), flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, mode);
  } catch (err) {
    throw osError(err, p, (flags & (constants.O_WRONLY | constants.O_RDWR)) !== 0);
  }
}

/** The bytes of the regular file at `p`. A link, a directory or a missing file is refused. */
export function readProjectFile(root: string, p: ProjectPath): Buffer {
  const fd = open(root, p, constants.O_RDONLY);
  try {
    confirmOpened(root, fd, p);
    const chunks: Buffer[] = [];
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) return Buffer.concat(chunks);
      chunks.push(chunk.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `bytes` as the regular file at `p`: an existing file is overwritten in place (keeping its
 * mode), a missing one is created with `mode`. A link or directory there is refused.
 */
export function writeProjectFile(root: string, p: ProjectPath, bytes: Buffer, mode = 0o644): void {
  const exists = lstatOrNull(full(root, p.bytes)) !== null;
  const flags = exists ? constants.O_WRONLY : constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;
  const fd = open(root, p, flags, mode);
  try {
    try {
      confirmOpened(root, fd, p);
    } catch (err) {
      if (!exists) removeStray(fd);
      throw err;
    }
    ftruncateSync(fd, 0);
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at, at);
  } finally {
    closeSync(fd);
  }
}

/** The target of the symbolic link at `p`, as git stores it (the link is read, never followed). */
export function readProjectLink(root: string, p: ProjectPath): Buffer {
  if (entryKind(root, p) !== "link") throw new GitGoodError("NOT_FOUND", `there is no symbolic link ${p.shown} in the project`, { path: p.shown });
  try {
    return readlinkSync(full(root, p.bytes), { encoding: "buffer" });
  } catch (err) {
    throw osError(err, p, false);
  }
}

/**
 * Makes `p` a symbolic link to `target`, replacing a file or link there (never what a link points to):
 * the link is made under a temporary name beside it and renamed over the entry in one step.
 */
export function writeProjectLink(root: string, p: ProjectPath, target: Buffer): void {
  if (target.length === 0 || target.includes(0)) {
    throw new GitGoodError("BAD_ARGUMENTS", `the target of the symbolic link ${p.shown} must be non-empty and hold no NUL byte`, { path: p.shown });
  }
  if (entryKind(root, p) === "directory") throw new GitGoodError("NOT_A_FILE", `${p.shown} is a directory, not a file`, { path: p.shown });
  const dest = full(root, p.bytes);
  const temp = Buffer.concat([dest, Buffer.from(`.gitgood-${process.pid}-${randomBytes(4).toString("hex")}`)]);
  try {
    symlinkSync(target, temp);
    renameSync(temp, dest);
  } catch (err) {
    rmSync(temp, { force: true });
    throw osError(err, p, true);
  }
}

/** Removes the file or link at `p` (a link is removed, not what it points to); a missing entry is fine. */
export function removeProjectEntry(root: string, p: ProjectPath): void {
  const kind = entryKind(root, p);
  if (kind === "missing") return;
  if (kind === "directory") throw new GitGoodError("NOT_A_FILE", `${p.shown} is a directory, not a file`, { path: p.shown });
  try {
    unlinkSync(full(root, p.bytes));
  } catch (err) {
    throw osError(err, p, true);
  }
}

/**
 * Makes the missing directories on the way to `p` (not `p` itself), one level at a time: each is
 * checked with lstat first, and each one made is confirmed to be the directory inside the project (a
 * directory made through a link swapped in meanwhile is removed again and the path refused).
 */
export function makeProjectParents(root: string, p: ProjectPath): void {
  const parts = components(p.bytes);
  const inside = realpathSync(root);
  for (let i = 1; i < parts.length; i++) {
    const prefix = joinComponents(parts.slice(0, i));
    checkParents(root, Buffer.concat([prefix, Buffer.from("/x")]), p.shown);
    const dir = full(root, prefix);
    const st = lstatOrNull(dir);
    if (st?.isDirectory()) continue;
    if (st) refuse("NOT_A_FILE", p.shown, `'${showPath(prefix)}' is a file, not a directory`);
    try {
      mkdirSync(dir);
    } catch (err) {
      throw osError(err, p, true);
    }
    const made = realpathSync(dir, { encoding: "buffer" });
    if (!made.equals(Buffer.concat([Buffer.from(inside, "utf8"), Buffer.from("/"), prefix]))) {
      rmdirSync(made);
      refuse("SYMLINK_REFUSED", p.shown, "a directory on the way changed while it was made; the tools never go through links");
    }
  }
}
