import { statSync } from "node:fs";
import path from "node:path";
import { attemptViewOf, indexOfRun, type AttemptView, type IndexRow, type IndexRun, type ViewIndex } from "../report/html-data.js";
import { RESULTS_FILE, RUN_FILE, RunStore } from "../runs/store.js";
import { TrajectorySchema } from "../runs/trajectory.js";
import { at } from "../util/at.js";

export type { AttemptView, IndexRow, IndexRun, ViewIndex } from "../report/html-data.js";

interface Cached {
  stamp: string;
  /** The run as read at `stamp`: its records, and its trajectories on demand. */
  store: RunStore;
  run: IndexRun;
  rows: IndexRow[];
}

/**
 * The run directories a viewer serves, read again whenever a run's files change (a run being written is
 * seen live), and otherwise from memory.
 */
export class RunSet {
  private readonly cache = new Map<string, Cached>();

  constructor(
    readonly dirs: readonly string[],
    readonly labels: readonly string[],
  ) {}

  private stamp(dir: string): string {
    const parts = [RUN_FILE, RESULTS_FILE].map((f) => {
      try {
        const s = statSync(path.join(dir, f));
        return `${s.size}:${s.mtimeMs}`;
      } catch {
        return "-";
      }
    });
    return parts.join("|");
  }

  private read(i: number): Cached {
    const dir = at(this.dirs, i);
    const stamp = this.stamp(dir);
    const cached = this.cache.get(dir);
    if (cached && cached.stamp === stamp) return cached;
    const config = RunStore.readConfig(dir);
    const store = RunStore.openExisting(dir);
    const { run, rows } = indexOfRun(
      store.all(),
      { label: this.labels[i] ?? dir, dir: path.resolve(dir), agent: config.identity.agent, model: config.identity.model?.name ?? null, created_at: config.created_at },
      i,
    );
    const fresh = { stamp, store, run, rows };
    this.cache.set(dir, fresh);
    return fresh;
  }

  index(): ViewIndex {
    const runs: IndexRun[] = [];
    const rows: IndexRow[] = [];
    this.dirs.forEach((_, i) => {
      const c = this.read(i);
      runs.push(c.run);
      rows.push(...c.rows);
    });
    return { runs, rows };
  }

  /** One attempt in full; null when there is none of that key. */
  attempt(runIndex: number, key: string): AttemptView | null {
    if (this.dirs[runIndex] === undefined) return null;
    const { store } = this.read(runIndex);
    const record = store.get(key);
    if (!record) return null;
    let trajectory = null;
    let problem: string | null = null;
    if (record.trajectory) {
      try {
        const parsed = TrajectorySchema.safeParse(store.readTrajectory(record.trajectory));
        if (parsed.success) trajectory = parsed.data;
        else problem = "the trajectory file is not in the expected format";
      } catch (err) {
        problem = `the trajectory file cannot be read (${err instanceof Error ? err.message : String(err)})`;
      }
    }
    return attemptViewOf(record, trajectory, problem);
  }
}
