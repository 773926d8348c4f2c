import { statSync } from "node:fs";
import path from "node:path";
import { conversationOf, eventsOf, type Turn } from "../export/conversation.js";
import { buildReport, type Report } from "../report/summary.js";
import { RESULTS_FILE, RUN_FILE, RunStore } from "../runs/store.js";
import { TrajectorySchema } from "../runs/trajectory.js";
import { at } from "../util/at.js";

/** One attempt as the viewer's sample list shows it: compact, so that a 5,000-attempt index stays small. */
interface IndexRow {
  run: number;
  key: string;
  sample_id: string;
  scenario: string;
  difficulty: string;
  repository: string;
  language: string;
  agent: string;
  repeat: number;
  status: string;
  verdict: string;
  /** The error's code (its fault class is shown with it), or null. */
  error: string | null;
  tampered: boolean;
  turns: number;
  tool_calls: number;
  tokens: number;
  cost_usd: number | null;
  duration_ms: number;
}

/** A run as the viewer's summary shows it: label, agent, model, and the report without its per-sample rows. */
interface IndexRun {
  label: string;
  dir: string;
  agent: string;
  model: string | null;
  created_at: string;
  attempts: number;
  summary: Omit<Report, "samples">;
}

interface ViewIndex {
  runs: IndexRun[];
  rows: IndexRow[];
}

/** Whether a record's scores say the agent changed what it must not (test files, the evaluation's inputs). */
function tamperedOf(scores: Record<string, unknown>): boolean {
  const text = JSON.stringify(scores);
  return /"(tampered|tampering|dropped_changes|changed_test_files)":\s*(true|\[[^\]])/.test(text);
}

interface Cached {
  stamp: string;
  /** The run as read at `stamp`: its records, and its trajectories on demand. */
  store: RunStore;
  run: IndexRun;
  rows: Omit<IndexRow, "run">[];
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
    const records = store.all();
    const report = buildReport(records);
    const { samples, ...summary } = report;
    const byKey = new Map(records.map((r) => [r.key, r]));
    const rows = samples.map((s) => ({
      key: s.key,
      sample_id: s.sample_id,
      scenario: s.scenario,
      difficulty: s.difficulty,
      repository: s.repository,
      language: s.language,
      agent: s.agent,
      repeat: s.repeat,
      status: s.status,
      verdict: s.verdict,
      error: byKey.get(s.key)?.error?.code ?? null,
      tampered: tamperedOf(byKey.get(s.key)?.scores ?? {}),
      turns: s.turns,
      tool_calls: s.tool_calls,
      tokens: s.tokens,
      cost_usd: s.cost_usd,
      duration_ms: s.duration_ms,
    }));
    const run: IndexRun = {
      label: this.labels[i] ?? dir,
      dir: path.resolve(dir),
      agent: config.identity.agent,
      model: config.identity.model?.name ?? null,
      created_at: config.created_at,
      attempts: records.length,
      summary,
    };
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
      for (const r of c.rows) rows.push({ run: i, ...r });
    });
    return { runs, rows };
  }

  /** One attempt in full: its record, transcript, the family's outcome fields and its timeline; null when there is none of that key. */
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
    const conv = trajectory ? conversationOf(trajectory) : null;
    const notes = trajectory ? eventsOf(trajectory).filter((e) => e.type === "note").map((e) => (e as { text: string }).text) : [];
    return {
      record,
      problem,
      system: conv?.system ?? null,
      task: conv?.task ?? null,
      turns: conv?.turns ?? [],
      notes,
      outcome: trajectory
        ? {
            scores: record.scores,
            final: trajectory.final ?? null,
            ground_truth_diff: trajectory.ground_truth_diff ?? null,
            ended_by: trajectory.ended_by ?? null,
            judge_usage: trajectory.judge_usage ?? null,
          }
        : { scores: record.scores, final: null, ground_truth_diff: null, ended_by: null, judge_usage: null },
    };
  }
}

interface AttemptView {
  record: unknown;
  problem: string | null;
  system: string | null;
  task: string | null;
  turns: Turn[];
  /** Notes of the attempt (an external agent's stdout and stderr, malformed calls). */
  notes: string[];
  outcome: { scores: unknown; final: unknown; ground_truth_diff: string | null; ended_by: string | null; judge_usage: unknown };
}
