import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { errnoCode } from "../util/errno.js";

/**
 * Where a directory opened by descriptor is reached again by name: on Linux `/proc/self/fd/N` leads to
 * the opened directory itself, whatever has been renamed or replaced on the way since, so a name below
 * it is looked up in that directory (as `openat` would). Elsewhere the path it was opened at is used,
 * after the same checks (a program that renames directories at the same moment may win a race there).
 */
const BY_DESCRIPTOR = existsSync("/proc/self/fd");

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const NEW_FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

function plainName(name: string): string {
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) {
    throw new GitGoodError("INTERNAL", `not a plain file name: ${JSON.stringify(name)}`);
  }
  return name;
}

function errnoOf(err: unknown): string | undefined {
  return errnoCode(err);
}

let temporaries = 0;

/**
 * A directory that someone else (a program in a sandbox) can write, which gitgood writes into without
 * ever going through a symbolic link: every directory on the way is opened without following links, a
 * file is written under a fresh name created exclusively and then renamed over the old entry (a rename
 * replaces a link, never writes through it), and removal unlinks entries rather than following them.
 * Anything that is not what it should be (a link or a file where a directory belongs, a directory where
 * a file belongs) is refused with SYMLINK_REFUSED, and nothing is written there.
 */
export class ForeignDir {
  private closed = false;

  private constructor(
    private readonly fd: number,
    /** Where the directory was opened, for messages and the fallback without /proc. */
    readonly shown: string,
  ) {}

  /** Opens `parent/name`, where `parent` is a directory of gitgood's own; null when it does not exist. */
  static open(parent: string, name: string): ForeignDir | null {
    return ForeignDir.openAt(path.resolve(parent), plainName(name), path.join(parent, name));
  }

  private static openAt(base: string, name: string, shown: string): ForeignDir | null {
    let fd: number;
    try {
      fd = openSync(path.join(base, name), DIR_FLAGS);
    } catch (err) {
      const code = errnoOf(err);
      if (code === "ENOENT") return null;
      if (code === "ELOOP" || code === "ENOTDIR") {
        throw new GitGoodError("SYMLINK_REFUSED", `${shown} is not a directory (a link or a file stands there); gitgood does not write into it`, { path: shown });
      }
      throw err;
    }
    if (!BY_DESCRIPTOR && lstatSync(shown).isSymbolicLink()) {
      closeSync(fd);
      throw new GitGoodError("SYMLINK_REFUSED", `${shown} is a symbolic link; gitgood does not write through it`, { path: shown });
    }
    return new ForeignDir(fd, shown);
  }

  private get base(): string {
    if (this.closed) throw new GitGoodError("INTERNAL", `${this.shown} is closed`);
    return BY_DESCRIPTOR ? `/proc/self/fd/${this.fd}` : this.shown;
  }

  private at(name: string): string {
    return path.join(this.base, plainName(name));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }

  /** The subdirectory `rel` (slash-separated), made when missing and `create` is set; null when missing and not made. */
  dir(rel: string, create: boolean): ForeignDir | null {
    // The directory reached so far, when below this one (it is closed once the next one is open).
    let below: ForeignDir | null = null;
    for (const name of rel.split("/")) {
      const current: ForeignDir = below ?? this;
      let next = ForeignDir.openAt(current.base, plainName(name), path.join(current.shown, name));
      if (!next && create) {
        try {
          mkdirSync(current.at(name), { mode: 0o755 });
        } catch (err) {
          if (errnoOf(err) !== "EEXIST") throw err;
        }
        next = ForeignDir.openAt(current.base, name, path.join(current.shown, name));
      }
      below?.close();
      if (!next) return null;
      below = next;
    }
    return below;
  }

  /** Runs `use` on the subdirectory `rel` (made when missing) and closes it again. */
  within<T>(rel: string, use: (dir: ForeignDir) => T): T {
    const sub = this.dir(rel, true);
    if (!sub) throw new GitGoodError("INTERNAL", `${path.join(this.shown, rel)} vanished while it was made`);
    try {
      return use(sub);
    } finally {
      sub.close();
    }
  }

  /** The entry `name` exists (as anything, a link included: it is not followed). */
  has(name: string): boolean {
    try {
      lstatSync(this.at(name));
      return true;
    } catch (err) {
      if (errnoOf(err) === "ENOENT") return false;
      throw err;
    }
  }

  /** The names in the directory. */
  list(): string[] {
    return readdirSync(this.base);
  }

  /**
   * Puts a new regular file at `name`, replacing what stood there unless it is a directory: `write` makes
   * the file at the path it is given, which must be created exclusively (it is a fresh name).
   */
  place(name: string, write: (fresh: string) => void): void {
    const tmp = `.gitgood-${process.pid}-${++temporaries}.tmp`;
    write(this.at(tmp));
    try {
      renameSync(this.at(tmp), this.at(name));
    } catch (err) {
      unlinkSync(this.at(tmp));
      const code = errnoOf(err);
      if (code === "EISDIR" || code === "ENOTEMPTY" || code === "EEXIST") {
        throw new GitGoodError("SYMLINK_REFUSED", `${path.join(this.shown, name)} is a directory; gitgood does not replace it`, { path: path.join(this.shown, name) });
      }
      throw err;
    }
  }

  /** Writes `bytes` as the regular file `name` (see `place`). */
  writeFile(name: string, bytes: Buffer, mode = 0o644): void {
    this.place(name, (fresh) => {
      const fd = openSync(fresh, NEW_FILE_FLAGS, mode);
      try {
        for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
        if (!fstatSync(fd).isFile()) throw new GitGoodError("INTERNAL", `${fresh} is not a regular file`);
      } finally {
        closeSync(fd);
      }
    });
  }

  /** Removes the entry `name`: a file or link is unlinked (never followed), a directory emptied the same way and removed. */
  remove(name: string): void {
    try {
      unlinkSync(this.at(name));
      return;
    } catch (err) {
      const code = errnoOf(err);
      if (code === "ENOENT") return;
      if (code !== "EISDIR" && code !== "EPERM") throw err;
    }
    const sub = ForeignDir.openAt(this.base, name, path.join(this.shown, name));
    if (!sub) return;
    try {
      for (const entry of sub.list()) sub.remove(entry);
    } finally {
      sub.close();
    }
    rmdirSync(this.at(name));
  }
}
