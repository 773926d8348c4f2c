import path from "node:path";
import { GitGoodError } from "../errors.js";
import type { ResultRecord } from "../runs/record.js";
import { RunStore } from "../runs/store.js";
import { TrajectorySchema, type Trajectory } from "../runs/trajectory.js";

/** One attempt of a run: its results record and, when its file is there and sound, its trajectory. */
export interface Attempt {
  record: ResultRecord;
  trajectory: Trajectory | null;
}

/** A run directory as the exports read it: its label, settings and records. */
export interface RunRead {
  dir: string;
  label: string;
  config: ReturnType<typeof RunStore.readConfig>;
  records: ResultRecord[];
  store: RunStore;
}

/** Reads a run directory (one clear error when it is not one). */
export function readRun(dir: string): RunRead {
  const { config, records } = RunStore.read(dir);
  return { dir, label: path.basename(path.resolve(dir)), config, records, store: RunStore.openExisting(dir) };
}

/**
 * The trajectory of a record, checked against the trajectory schema; null when the record has none,
 * or its file is missing, damaged, outside the run directory, or of another shape.
 */
export function trajectoryOf(run: Pick<RunRead, "store">, record: ResultRecord): Trajectory | null {
  if (!record.trajectory) return null;
  let raw: unknown;
  try {
    raw = run.store.readTrajectory(record.trajectory);
  } catch {
    return null;
  }
  const parsed = TrajectorySchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/** Every attempt of a run, in the results file's order, each with its trajectory when it has one. */
export function attemptsOf(run: RunRead): Attempt[] {
  return run.records.map((record) => ({ record, trajectory: trajectoryOf(run, record) }));
}

/** Refuses the same run directory given twice (its attempts would be exported twice). */
export function distinctRunDirs(dirs: readonly string[]): void {
  const seen = new Set<string>();
  for (const d of dirs) {
    const abs = path.resolve(d);
    if (seen.has(abs)) throw new GitGoodError("BAD_OPTION", `the run directory ${d} is given twice`);
    seen.add(abs);
  }
}
