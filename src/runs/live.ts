import { appendFileSync, mkdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
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

/** Which attempt a live file is of: its first line. */
export interface LiveHead {
  sample_id: string;
  scenario: string;
  agent: string;
}

/**
 * The trajectories of a run's attempts while they run in this process: a first line saying which attempt
 * (`LiveHead`), then one line per event, appended as it is recorded, in a file removed once the attempt's record and trajectory are written. A queued run's
 * workers write none. Writing is best effort: a file that cannot be written stops being written, and the
 * attempt goes on.
 */
export class LiveTurns {
  constructor(private readonly dir: string) {}

  /** Starts an attempt's file anew with its head and events so far, and returns what appends each later one. */
  open(key: string, head: LiveHead, sofar: readonly TrajectoryEvent[]): (event: TrajectoryEvent) => void {
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
      writeFileSync(file, [head, ...sofar].map((e) => `${JSON.stringify(e)}\n`).join(""));
    });
    return (event) => write(() => appendFileSync(file, `${JSON.stringify(event)}\n`));
  }

  /** Removes an attempt's file (its trajectory is written), and the directory once no attempt runs. */
  ended(key: string): void {
    rmSync(path.join(this.dir, livePath(key)), { force: true });
    try {
      rmdirSync(path.join(this.dir, LIVE_DIR));
    } catch {
      // Another attempt's file is still there (or the directory is gone already).
    }
  }
}

/**
 * A running attempt's head and events so far, from its live file (null when it has none, or its head is
 * not one). Lines that are not JSON objects (a line being written, a damaged one) are skipped.
 */
export function readLiveTurns(dir: string, key: string): (LiveHead & { events: Record<string, unknown>[] }) | null {
  let text: string;
  try {
    text = readFileSync(path.join(dir, livePath(key)), "utf8");
  } catch {
    return null;
  }
  const lines: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    try {
      const v: unknown = JSON.parse(line);
      if (typeof v === "object" && v !== null && !Array.isArray(v)) lines.push(v as Record<string, unknown>);
    } catch {
      continue;
    }
  }
  const [head, ...events] = lines;
  if (typeof head?.sample_id !== "string" || typeof head.scenario !== "string" || typeof head.agent !== "string") return null;
  return { sample_id: head.sample_id, scenario: head.scenario, agent: head.agent, events };
}
