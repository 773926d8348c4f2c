import { statSync } from "node:fs";
import path from "node:path";
import type { Turn } from "../report/conversation.js";
import type { AttemptView, IndexRow, IndexRun, ViewIndex } from "../report/html-data.js";
import { readLiveTurns } from "../runs/live.js";
import { PROGRESS_FILE, readProgress } from "../runs/progress.js";
import { RESULTS_FILE, RUN_FILE, RunStore } from "../runs/store.js";
import { at } from "../util/at.js";

export type { AttemptView, IndexRow, IndexRun, ViewIndex } from "../report/html-data.js";

/** An attempt still running, as far as it has gone: its transcript so far (from its live file, src/runs/live.ts). */
export interface LiveAttemptView {
  key: string;
  sample_id: string;
  scenario: string;
  agent: string;
  system: string | null;
  task: string | null;
  turns: Turn[];
  notes: string[];
}

interface Cached {
  stamp: string;
  /** The run as read at `stamp`: its records, and its trajectories on demand. */
  store: RunStore;
  run: IndexRun;
  rows: IndexRow[];
}

/** The code that reads runs for the page, loaded on the first request rather than before the address is printed. */
async function loadKit() {
  const [data, trajectory, compare, conversation] = await Promise.all([
    import("../report/html-data.js"),
    import("../runs/trajectory.js"),
    import("../report/compare.js"),
    import("../report/conversation.js"),
  ]);
  return {
    attemptViewOf: data.attemptViewOf,
    indexOfRun: data.indexOfRun,
    TrajectorySchema: trajectory.TrajectorySchema,
    runLabels: compare.runLabels,
    conversationOf: conversation.conversationOf,
    eventsOf: conversation.eventsOf,
  };
}
type Kit = Awaited<ReturnType<typeof loadKit>>;

/**
 * The run directories a viewer serves, read again whenever a run's files change (a run being written is
 * seen live), and otherwise from memory. Nothing is read, and the report's code is not loaded, until the
 * page first asks: the viewer's address comes at once whatever the runs' size.
 */
export class RunSet {
  private readonly cache = new Map<string, Cached>();
  private kit: Promise<Kit> | null = null;

  /** `labels`: the runs' names in the page (by default their directories' names, told apart where they clash). */
  constructor(
    readonly dirs: readonly string[],
    private readonly labels?: readonly string[],
  ) {}

  private loaded(): Promise<Kit> {
    this.kit ??= loadKit();
    return this.kit;
  }

  private stamp(dir: string): string {
    const parts = [RUN_FILE, RESULTS_FILE, PROGRESS_FILE].map((f) => {
      try {
        const s = statSync(path.join(dir, f));
        return `${s.size}:${s.mtimeMs}`;
      } catch {
        return "-";
      }
    });
    return parts.join("|");
  }

  private read(kit: Kit, i: number): Cached {
    const dir = at(this.dirs, i);
    const stamp = this.stamp(dir);
    const cached = this.cache.get(dir);
    if (cached && cached.stamp === stamp) return cached;
    const config = RunStore.readConfig(dir);
    const store = RunStore.openExisting(dir);
    const labels = this.labels ?? kit.runLabels(this.dirs);
    const records = store.all();
    const { run, rows } = kit.indexOfRun(
      records,
      {
        label: labels[i] ?? dir,
        dir: path.resolve(dir),
        agent: config.identity.agent,
        model: config.identity.model?.name ?? null,
        created_at: config.created_at,
        progress: readProgress(dir, records),
      },
      i,
    );
    const fresh = { stamp, store, run, rows };
    this.cache.set(dir, fresh);
    return fresh;
  }

  async index(): Promise<ViewIndex> {
    const kit = await this.loaded();
    const runs: IndexRun[] = [];
    const rows: IndexRow[] = [];
    this.dirs.forEach((_, i) => {
      const c = this.read(kit, i);
      runs.push(c.run);
      rows.push(...c.rows);
    });
    return { runs, rows };
  }

  /** One attempt in full; null when there is none of that key. */
  async attempt(runIndex: number, key: string): Promise<AttemptView | null> {
    if (this.dirs[runIndex] === undefined) return null;
    const kit = await this.loaded();
    const { store } = this.read(kit, runIndex);
    const record = store.get(key);
    if (!record) return null;
    let trajectory = null;
    let problem: string | null = null;
    if (record.trajectory) {
      try {
        const parsed = kit.TrajectorySchema.safeParse(store.readTrajectory(record.trajectory));
        if (parsed.success) trajectory = parsed.data;
        else problem = "the trajectory file is not in the expected format";
      } catch (err) {
        problem = `the trajectory file cannot be read (${err instanceof Error ? err.message : String(err)})`;
      }
    }
    return kit.attemptViewOf(record, trajectory, problem);
  }

  /** An attempt of a run that is running, its turns so far; null when the run does not say it is running or it wrote no live file. */
  async live(runIndex: number, key: string): Promise<LiveAttemptView | null> {
    const dir = this.dirs[runIndex];
    if (dir === undefined) return null;
    const kit = await this.loaded();
    if (!this.read(kit, runIndex).run.progress?.running_keys.includes(key)) return null;
    const live = readLiveTurns(dir, key);
    if (!live) return null;
    const events = kit.eventsOf(live);
    const conv = kit.conversationOf(live, events);
    const notes = events.flatMap((e) => (e.type === "note" ? [e.text] : []));
    return { key, sample_id: live.sample_id, scenario: live.scenario, agent: live.agent, system: conv.system, task: conv.task, turns: conv.turns, notes };
  }
}
