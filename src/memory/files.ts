import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
  type Stats,
} from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { errnoCode } from "../util/errno.js";

/**
 * Memory files live in a repository, which may be hostile: it may commit the memory folder, or a file
 * in it, as a symbolic link to a file outside (`.GCC/branches/main/log.md -> ~/.bashrc`). Every read
 * and write here goes only through real folders and files below the work tree root; a link anywhere on
 * the way is refused with an error naming it. Files are opened without following links, so a link
 * swapped in after the check is refused too.
 */

function rel(root: string, p: string): string {
  return path.relative(root, p).split(path.sep).join("/");
}

function linkError(root: string, p: string): GitGoodError {
  return new GitGoodError(
    "SYMLINK_REFUSED",
    `${rel(root, p)} in ${root} is a symbolic link; memory is never read or written through links — replace it with a real file or folder`,
    { path: rel(root, p) },
  );
}

function notAFile(root: string, p: string): GitGoodError {
  return new GitGoodError("NOT_A_FILE", `${rel(root, p)} in ${root} is not a regular file`, { path: rel(root, p) });
}

function steps(root: string, file: string): string[] {
  const r = path.relative(root, file);
  if (r === "" || r.startsWith("..") || path.isAbsolute(r)) {
    throw new GitGoodError("INTERNAL", `memory file ${file} is not below ${root}`);
  }
  return r.split(path.sep);
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw new GitGoodError("READ_FAILED", `cannot read ${p}: ${(err as Error).message}`, { file: p });
  }
}

/** What is at `file` (below `root`), or null when nothing is; a symbolic link on the way is refused. */
function inspect(root: string, file: string): Stats | null {
  let p = root;
  let st: Stats | null = null;
  for (const part of steps(root, file)) {
    p = path.join(p, part);
    st = lstatOrNull(p);
    if (st === null) return null;
    if (st.isSymbolicLink()) throw linkError(root, p);
  }
  return st;
}

/** Makes the folders down to `dir` one by one, refusing a link or a file on the way. */
function ensureDir(root: string, dir: string): void {
  if (path.resolve(dir) === path.resolve(root)) return;
  let p = root;
  for (const part of steps(root, dir)) {
    p = path.join(p, part);
    let st = lstatOrNull(p);
    if (st === null) {
      try {
        mkdirSync(p);
      } catch (err) {
        if (errnoCode(err) !== "EEXIST") throw err;
      }
      st = lstatSync(p);
    }
    if (st.isSymbolicLink()) throw linkError(root, p);
    if (!st.isDirectory()) {
      throw new GitGoodError("NOT_A_FOLDER", `${rel(root, p)} in ${root} is not a folder`, { path: rel(root, p) });
    }
  }
}

/** Opens a regular file without following a link (nor blocking on a FIFO). */
function openFile(root: string, file: string, flags: number): number {
  let fd: number;
  try {
    fd = openSync(file, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o666);
  } catch (err) {
    if (errnoCode(err) === "ELOOP") throw linkError(root, file);
    throw err;
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw notAFile(root, file);
  }
  return fd;
}

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
}

/** Refuses a symbolic link anywhere on the way to `file`, or at `file` itself. */
export function refuseLinks(root: string, file: string): void {
  inspect(root, file);
}

/** True when the memory file or folder exists (a symbolic link on the way is refused). */
export function exists(root: string, file: string): boolean {
  return inspect(root, file) !== null;
}

/** True when the folder exists and holds something (a file in its place counts as something). */
export function folderHasEntries(root: string, dir: string): boolean {
  const st = inspect(root, dir);
  if (st === null) return false;
  if (!st.isDirectory()) return true;
  try {
    return readdirSync(dir).length > 0;
  } catch (err) {
    throw new GitGoodError("READ_FAILED", `cannot read ${dir}: ${(err as Error).message}`, { file: dir });
  }
}

/** The text of a memory file, or null when there is none. */
export function readText(root: string, file: string): string | null {
  const st = inspect(root, file);
  if (st === null) return null;
  if (!st.isFile()) throw notAFile(root, file);
  try {
    const fd = openFile(root, file, constants.O_RDONLY);
    try {
      return readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    if (err instanceof GitGoodError) throw err;
    throw new GitGoodError("READ_FAILED", `cannot read ${file}: ${(err as Error).message}`, { file });
  }
}

/** Writes a file whole or not at all (an exclusive temporary sibling renamed into place), creating folders. */
export function writeText(root: string, file: string, text: string): void {
  try {
    ensureDir(root, path.dirname(file));
    const st = inspect(root, file);
    if (st !== null && !st.isFile()) throw notAFile(root, file);
    const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666);
    try {
      try {
        writeAll(fd, text);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, file);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  } catch (err) {
    if (err instanceof GitGoodError) throw err;
    throw new GitGoodError("WRITE_FAILED", `cannot write ${file}: ${(err as Error).message}`, { file });
  }
}

/** Appends text in a single write (O_APPEND), creating the file if needed. */
export function appendText(root: string, file: string, text: string): void {
  try {
    ensureDir(root, path.dirname(file));
    const st = inspect(root, file);
    if (st !== null && !st.isFile()) throw notAFile(root, file);
    const fd = openFile(root, file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
    try {
      writeAll(fd, text);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    if (err instanceof GitGoodError) throw err;
    throw new GitGoodError("WRITE_FAILED", `cannot write ${file}: ${(err as Error).message}`, { file });
  }
}

/** Puts a file back as it was: the saved text, or no file when there was none. */
export function restoreText(root: string, file: string, text: string | null): void {
  if (text !== null) writeText(root, file, text);
  else if (inspect(root, file) !== null) rmSync(file, { force: true });
}
