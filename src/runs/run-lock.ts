import { mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { takeLockNow } from "../util/lock.js";

/** The lock file of a run directory while a `gitgood run` (or `bench`) works in it. */
export const RUN_LOCK_FILE = "run.lock";

/**
 * Takes the lock of a run directory (made if missing) for this process, so that one `gitgood run`
 * works in it at a time: the lock file names the holder's PID and host. A lock whose holder is gone
 * (a process of this host that no longer runs) is taken over; a live holder's is refused in one line.
 * Returns the release function; the lock is released as well when the process exits or is stopped by
 * SIGINT, SIGTERM or SIGHUP.
 */
export function lockRunDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const file = path.resolve(dir, RUN_LOCK_FILE);
  return takeLockNow(file, {
    releaseAtExit: true,
    busy: (holder) => {
      if (holder.pid === 0) {
        return new GitGoodError("RUN_LOCKED", `could not lock ${dir}: other processes keep taking its lock; use another --out`, { file });
      }
      const where = holder.host === os.hostname() ? `process ${holder.pid}` : `process ${holder.pid} on ${holder.host}`;
      const since = holder.started === null ? "" : `, since ${holder.started}`;
      return new GitGoodError("RUN_LOCKED", `another gitgood run (${where}${since}) works in ${dir}; wait for it to end or use another --out`, {
        file,
        pid: holder.pid,
        host: holder.host,
      });
    },
    notALock: () => new GitGoodError("CORRUPT_LOCK", `${file} is not a lock gitgood wrote; delete it if no gitgood run works in ${dir}`, { file }),
    cannotCreate: (code) => new GitGoodError("LOCK_FAILED", `cannot create the run directory's lock ${file}: ${code}`, { file }),
  });
}
