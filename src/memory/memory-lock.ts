import { GitGoodError } from "../errors.js";
import { withLock as withFileLock } from "../util/lock.js";

interface LockOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
}

/** Runs `fn` holding the memory lock `file`, waiting for a live holder (another memory command) to finish. */
export function withLock<T>(file: string, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  return withFileLock(file, fn, {
    waitMs: opts.timeoutMs ?? 30_000,
    busy: (holder) =>
      new GitGoodError("LOCKED", `memory is locked by another process (${file}); try again later`, { file, owner: holder.pid }),
    notALock: (why) =>
      new GitGoodError(
        "CORRUPT_LOCK",
        `the memory lock ${file} ${why === "no process id" ? "does not hold a process id" : "is not a regular file"}, so it is not a lock gitgood made; if no gitgood memory command is running, delete it and try again`,
        { file },
      ),
    cannotCreate: (code) => new GitGoodError("LOCK_FAILED", `cannot create lock ${file}: ${code}`, { file }),
  });
}
