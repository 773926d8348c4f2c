import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { safeFileName } from "../util/file-names.js";
import type { TrajectoryEvent } from "./session.js";

/** The directory, in a run directory, of the trajectories of attempts still running. */
export const LIVE_DIR = "live";

/**
 * Where a running attempt's events go, relative to the run directory: `live/NAME.jsonl`, NAME the key's
 * safe file name (as its trajectory's).
 */
export function livePath(key: string): string {
  return path.join(LIVE_DIR, `${safeFileName(key)}.jsonl`);
}

/**
 * The trajectories of a run's attempts while they run in this process: one line per event, appended as it
 * is recorded, in a file removed once the attempt's record and trajectory are written. A queued run's
 * workers write none. Writing is best effort: a file that cannot be written stops being written, and the
 * attempt goes on.
 */
export class LiveTurns {
  constructor(private readonly dir: string) {}

  /** Starts an attempt's file anew with its events so far, and returns what appends each later one. */
  open(key: string, sofar: readonly TrajectoryEvent[]): (event: TrajectoryEvent) => void {
    const file = path.join(this.dir, livePath(key));
    let open = true;
    const write = (put: () => void) => {
      if (!open) return;
      try {
        put();
      } catch {
        open = false;
      }
    };
    write(() => {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, sofar.map((e) => `${JSON.stringify(e)}\n`).join(""));
    });
    return (event) => write(() => appendFileSync(file, `${JSON.stringify(event)}\n`));
  }

  /** Removes an attempt's file (its trajectory is written). */
  ended(key: string): void {
    rmSync(path.join(this.dir, livePath(key)), { force: true });
  }
}
