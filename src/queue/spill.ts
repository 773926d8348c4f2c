import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, rmSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { safeFileName } from "../util/file-names.js";
import { writeOutputFile } from "../util/output.js";

/** What a worker's name takes in a spilled file's name: the characters of a file name on any system. */
const WORKER_PART = /^[A-Za-z0-9._-]{1,200}$/;
const SUFFIX = ".json.gz";

/** A worker id as it goes into a file name. */
function workerPart(worker: string): string {
  return worker.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 200) || "_";
}

/**
 * Writes a compressed trajectory into the spill directory as `KEY.WORKER.json.gz` and returns that name:
 * the name, not the path, goes through Redis, since the producer may see the shared directory elsewhere.
 */
export function writeSpilled(dir: string, key: string, worker: string, gz: Buffer): string {
  mkdirSync(dir, { recursive: true });
  const name = `${safeFileName(key)}.${workerPart(worker)}${SUFFIX}`;
  writeOutputFile(path.join(dir, name), gz);
  return name;
}

function refused(key: string, name: string, why: string): GitGoodError {
  return new GitGoodError("BAD_RESULT", `the trajectory of ${key} was spilled as ${JSON.stringify(name.slice(0, 200))}, which this producer does not take: ${why}`, { key });
}

/**
 * The spilled file of job `key` in the producer's spill directory, checked before anything reads or
 * deletes it. A result on the queue is whatever was written to Redis, so the name is taken as hostile:
 * it must be one plain file name (no separator, no `..`) made of the job's own key and a worker's
 * name, and the file must be a regular file directly in the spill directory (not a symbolic link, not
 * reached through one). Anything else is BAD_RESULT in one line.
 */
export function spilledFile(dir: string | null, key: string, name: string): string {
  if (dir === null) throw refused(key, name, "it was given no --spill-dir");
  const prefix = `${safeFileName(key)}.`;
  const middle = name.startsWith(prefix) && name.endsWith(SUFFIX) ? name.slice(prefix.length, name.length - SUFFIX.length) : "";
  if (name.includes("/") || name.includes("\\") || name.includes("\0") || !WORKER_PART.test(middle)) {
    throw refused(key, name, `it is not a file name of that job (${prefix}WORKER${SUFFIX})`);
  }
  let home: string;
  try {
    home = realpathSync(dir);
  } catch {
    throw refused(key, name, `its spill directory ${dir} cannot be read`);
  }
  const file = path.join(home, name);
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(file);
  } catch {
    throw refused(key, name, `there is no such file in ${dir}`);
  }
  if (!st.isFile()) throw refused(key, name, `it is ${st.isSymbolicLink() ? "a symbolic link" : "not a regular file"}`);
  if (path.dirname(realpathSync(file)) !== home) throw refused(key, name, `it is not in ${dir}`);
  return file;
}

/** Reads a spilled file `spilledFile` checked; opened without following a link put there since. */
export function readSpilled(file: string, key: string): Buffer {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    throw refused(key, path.basename(file), "it cannot be opened as a plain file");
  }
  try {
    if (!fstatSync(fd).isFile()) throw refused(key, path.basename(file), "it is not a regular file");
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Deletes a spilled trajectory once the run directory holds it (a path `spilledFile` gave). */
export function removeSpilled(file: string | null): void {
  if (file !== null) rmSync(file, { force: true });
}
