import { GitGoodError } from "../errors.js";
import { takeLockNow } from "../util/lock.js";

/**
 * Takes a lock file for one tool call, so two `gitgood tool` processes never change the same
 * scenario at once. A lock left by a process that is gone is taken over. Returns the release function.
 */
export function acquireLock(file: string): () => void {
  return takeLockNow(file, {
    busy: (holder) =>
      holder.pid === 0
        ? new GitGoodError("BUSY", "could not lock the scenario for this tool call")
        : new GitGoodError("BUSY", `another tool call (process ${holder.pid}) is running in this scenario; try again when it ends`),
    notALock: () => new GitGoodError("BUSY", `the scenario's call lock ${file} is not a lock gitgood wrote; finish the scenario and set it up again`),
    cannotCreate: (code) => new GitGoodError("LOCK_FAILED", `cannot create the scenario's call lock ${file}: ${code}`, { file }),
  });
}
