import { randomBytes } from "node:crypto";
import { closeSync, fchmodSync, lstatSync, openSync, renameSync, unlinkSync, writeSync, type Stats } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { errnoCode, fsReason } from "./errno.js";

function failure(file: string, err: unknown): GitGoodError {
  const why = fsReason(err);
  return new GitGoodError("WRITE_FAILED", `cannot write ${file}: ${why}`, { file });
}

function existing(file: string): Stats | null {
  try {
    return lstatSync(file);
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return null;
    throw failure(file, err);
  }
}

/** Something that writes its output piece by piece through `write`. */
export type OutputProducer = (write: (data: string | Buffer) => void) => void;

const writeAll = (fd: number, data: string | Buffer): void => {
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
};

/** Replaces a regular file (or makes a new one) whole or not at all: an exclusive temporary sibling renamed into place. */
function replace(file: string, produce: OutputProducer, mode: number | null): void {
  const tmp = path.join(path.dirname(path.resolve(file)), `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(tmp, "wx");
  try {
    try {
      produce((data) => writeAll(fd, data));
      if (mode !== null) fchmodSync(fd, mode & 0o7777);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* never made, or already renamed */
    }
    throw err;
  }
}

/**
 * Writes an output file a user named (`-o`, `--html`, dataset and run files). A new path or a regular
 * file is replaced atomically (readers see the old or the new content, never half) and keeps its
 * permissions. Anything else is written through and never replaced: a symbolic link stays a link and
 * its target gets the data, a FIFO or a device (such as /dev/null) stays what it is. A directory is
 * refused.
 */
export function writeOutputFile(file: string, data: string | Buffer): void {
  writeOutputStream(file, (write) => write(data));
}

/**
 * `writeOutputFile` for output made piece by piece (a large page): the pieces go to the file as they
 * come, never all held at once; a regular file is still replaced atomically when `produce` returns.
 */
export function writeOutputStream(file: string, produce: OutputProducer): void {
  const st = existing(file);
  if (st?.isDirectory()) throw new GitGoodError("WRITE_FAILED", `cannot write ${file}: it is a directory`, { file });
  try {
    if (st === null || st.isFile()) replace(file, produce, st ? st.mode : null);
    else {
      const fd = openSync(file, "w");
      try {
        produce((data) => writeAll(fd, data));
      } finally {
        closeSync(fd);
      }
    }
  } catch (err) {
    if (err instanceof GitGoodError) throw err;
    throw failure(file, err);
  }
}
