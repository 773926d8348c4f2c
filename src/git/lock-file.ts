import { closeSync, openSync, renameSync, rmSync, writeSync } from "node:fs";

/**
 * Replaces `file` with `bytes` as git does: written to `file.lock` (created, never opened when it exists)
 * and renamed into place, so a reader sees the old file or the new one. False, with nothing changed, when
 * the lock is taken (someone else is writing it).
 */
export function replaceThroughLock(file: string, bytes: string | Buffer): boolean {
  const lock = `${file}.lock`;
  let fd: number;
  try {
    fd = openSync(lock, "wx", 0o644);
  } catch {
    return false;
  }
  try {
    writeSync(fd, typeof bytes === "string" ? Buffer.from(bytes) : bytes);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(lock, file);
  } catch (err) {
    rmSync(lock, { force: true });
    throw err;
  }
  return true;
}
