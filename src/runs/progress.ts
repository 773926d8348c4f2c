import { appendFileSync, existsSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * What a run has planned and started, so that a viewer shows progress from its first second, before any
 * attempt has finished: `progress.jsonl` in the run directory, one line per event, appended as it
 * happens. Each `gitgood run` (a resume too) first writes its plan (`{"plan": N, "at": ISO}`: every
 * sample × scenario × repeat it covers, resumed ones included), then one line per attempt as it starts
 * (`{"start": KEY, "at": ISO}`). The results file stays the record of what finished.
 */
export const PROGRESS_FILE = "progress.jsonl";

/** Appends a run's plan and its attempts' starts to its progress file. */
export class ProgressLog {
  private readonly file: string;

  constructor(dir: string) {
    this.file = path.join(dir, PROGRESS_FILE);
  }

  plan(attempts: number): void {
    appendFileSync(this.file, `${JSON.stringify({ plan: attempts, at: new Date().toISOString() })}\n`);
  }

  started(key: string): void {
    appendFileSync(this.file, `${JSON.stringify({ start: key, at: new Date().toISOString() })}\n`);
  }
}

/** How far a run is: its latest plan's attempts, those finished, and those started and not yet finished. */
export interface RunProgress {
  planned: number;
  done: number;
  running: number;
  /** The keys of the attempts running. */
  running_keys: string[];
}

/**
 * The progress of a run from its progress file and its records (null when the run has no progress file:
 * made before it existed, or by a tool that does not write one). An attempt is running when it started
 * after the latest plan and has no record, or only one from before it started (an error being retried).
 * Lines that are not a plan or a start (a damaged or foreign line) are skipped.
 */
export function readProgress(dir: string, records: readonly { key: string; started_at: string }[]): RunProgress | null {
  const file = path.join(dir, PROGRESS_FILE);
  if (!existsSync(file)) return null;
  let planned: number | null = null;
  let starts = new Map<string, string>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    let e: unknown;
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof e !== "object" || e === null) continue;
    const { plan, start, at } = e as { plan?: unknown; start?: unknown; at?: unknown };
    if (typeof at !== "string") continue;
    if (typeof plan === "number" && Number.isSafeInteger(plan) && plan >= 0) {
      planned = plan;
      starts = new Map();
    } else if (typeof start === "string") starts.set(start, at);
  }
  if (planned === null) return null;
  const byKey = new Map(records.map((r) => [r.key, r.started_at]));
  const running: string[] = [];
  let retried = 0;
  for (const [key, at] of starts) {
    const recorded = byKey.get(key);
    if (recorded !== undefined && recorded >= at) continue;
    running.push(key);
    if (recorded !== undefined) retried++;
  }
  return { planned, done: Math.min(planned, records.length - retried), running: running.length, running_keys: running };
}
