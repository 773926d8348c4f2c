import { closeSync, linkSync, lstatSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { GitGoodError } from "../errors.js";
import { processAlive } from "../util/processes.js";

/**
 * An exclusive lock between processes: a file created with O_EXCL that holds the owner's pid. A lock
 * whose owner no longer runs (on this host) is stale and taken over; a live owner is waited for.
 */
export interface LockOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
}

function tryCreate(file: string, token: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, "wx");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new GitGoodError("LOCK_FAILED", `cannot create lock ${file}: ${(err as Error).message}`, { file });
  }
  try {
    writeSync(fd, token);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readOwner(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/** What a lock file holds: `<pid> <time> <random>` and a newline, as `withLock` writes it. */
const TOKEN = /^([1-9]\d*) \d+ [0-9a-z]*\n$/;

function corrupt(file: string, why: string): GitGoodError {
  return new GitGoodError(
    "CORRUPT_LOCK",
    `the memory lock ${file} ${why}, so it is not a lock gitgood made; if no gitgood memory command is running, delete it and try again`,
    { file },
  );
}

/**
 * The owner line of an existing lock file; null when it is gone meanwhile. A lock file that is not a
 * regular file, or holds something other than an owner line, is refused at once: waiting would not
 * make it go away.
 */
function lockOwner(file: string): string | null {
  try {
    if (!lstatSync(file).isFile()) throw corrupt(file, "is not a regular file");
  } catch (err) {
    if (err instanceof GitGoodError) throw err;
    return null;
  }
  const owner = readOwner(file);
  if (owner !== null && owner !== "" && !TOKEN.test(owner)) throw corrupt(file, "does not hold a process id");
  return owner;
}

/** Moves a stale lock aside; if what was moved turns out to be a fresh lock, puts it back. */
function breakStale(file: string, seen: string): void {
  const aside = `${file}.stale-${process.pid}`;
  try {
    renameSync(file, aside);
  } catch {
    return;
  }
  const moved = readOwner(aside);
  if (moved !== seen) {
    try {
      linkSync(aside, file);
    } catch {
      /* someone took the lock meanwhile; the moved one belonged to a process that now runs unlocked */
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    /* already gone */
  }
}

/** An empty lock file is one whose owner died between creating and writing it, once it is old enough. */
function olderThan(file: string, ms: number): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs > ms;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function withLock<T>(file: string, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  const token = `${process.pid} ${Date.now()} ${Math.random().toString(36).slice(2)}\n`;
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  let wait = 2;
  while (!tryCreate(file, token)) {
    const owner = lockOwner(file);
    const pid = owner ? Number(TOKEN.exec(owner)?.[1]) : NaN;
    if (owner !== null && ((pid > 0 && !processAlive(pid)) || (owner === "" && olderThan(file, 5_000)))) {
      breakStale(file, owner);
      continue;
    }
    if (Date.now() > deadline) {
      throw new GitGoodError("LOCKED", `memory is locked by another process (${file}); try again later`, {
        file,
        owner: owner?.trim() ?? null,
      });
    }
    await sleep(wait + Math.floor(Math.random() * wait));
    wait = Math.min(wait * 2, 50);
  }
  try {
    return await fn();
  } finally {
    if (readOwner(file) === token) {
      try {
        unlinkSync(file);
      } catch {
        /* already gone */
      }
    }
  }
}
