import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";

/**
 * The text of a regular file, opened without following a symbolic link (and without blocking on a
 * FIFO); null when the path is missing, a link, or anything but a regular file.
 */
export function readRegularFile(file: string): string | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd, "utf8") : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
