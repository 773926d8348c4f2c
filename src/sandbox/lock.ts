import { openSync, readFileSync, unlinkSync, writeSync, closeSync } from "node:fs";
import { GitGoodError } from "../errors.js";
import { processAlive } from "./owner.js";

/**
 * Takes a lock file for one tool call, so two `gitgood tool` processes never change the same
 * scenario at once. A lock left by a process that is gone is taken over. Returns the release function.
 */
export function acquireLock(file: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      let holder = NaN;
      try {
        holder = Number(readFileSync(file, "utf8"));
      } catch {
        continue;
      }
      if (Number.isInteger(holder) && holder !== process.pid && processAlive(holder)) {
        throw new GitGoodError("BUSY", `another tool call (process ${holder}) is running in this scenario; try again when it ends`);
      }
      try {
        unlinkSync(file);
      } catch {
        /* someone else took it over first */
      }
    }
  }
  throw new GitGoodError("BUSY", "could not lock the scenario for this tool call");
}
