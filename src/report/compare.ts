import type { Difficulty } from "../dataset/sample.js";
import { reportRank } from "../scenarios/registry.js";
import { variantOf } from "../runs/fields.js";
import { REPORT_SCHEMA_VERSION, type RateRow, type Report, type SampleRow } from "./summary.js";

/** One run of a comparison: its report, and the label its columns carry. */
interface LabelledReport {
  /** Short name of the run in tables (its directory's name, or the path when two names clash). */
  label: string;
  /** The run directory as given. */
  dir: string;
  report: Report;
}

/** A column of the side-by-side tables: one agent of one run (a `--memory` run has two). */
interface ComparisonColumn {
  run: string;
  agent: string;
  /** The column's header: the run's label, with the agent when the run has several. */
  name: string;
}

export interface ComparisonCell {
  samples: number;
  success_rate: number | null;
  solve_rate: number | null;
  unjudged: number;
}

/** One row of a side-by-side table: a scenario (and difficulty), with a cell per column (null: no such samples). */
export interface ComparisonRow {
  scenario: string;
  difficulty: Difficulty | "all";
  cells: (ComparisonCell | null)[];
}

/** How one run did on one sample × scenario: its attempts (several with repeats) and how many were solved. */
export interface Outcome {
  attempts: number;
  solved: number;
  /** The verdict of a single attempt; "mixed" when repeats disagree. */
  verdict: SampleRow["verdict"] | "mixed";
}

/** A sample × scenario (× memory variant) that some run solves more often than another. */
interface Difference {
  sample_id: string;
  scenario: string;
  difficulty: Difficulty;
  /** "+memory" for the with-memory attempts of a `--memory` run, else "". */
  variant: string;
  /** Per run, in the order of `runs` (null: the run did not attempt it). */
  outcomes: (Outcome | null)[];
}

export interface Comparison {
  schema_version: number;
  runs: LabelledReport[];
  columns: ComparisonColumn[];
  totals: ComparisonRow[];
  by_difficulty: ComparisonRow[];
  /** Samples the runs disagree on, in report order. */
  differences: Difference[];
}

/** Labels for run directories: their last path component, or the paths as given where those clash. */
export function runLabels(dirs: readonly string[]): string[] {
  const base = dirs.map((d) => d.replace(/[\\/]+$/, "").split(/[\\/]/).pop() || d);
  return base.map((b, i) => (base.filter((x) => x === b).length > 1 ? (dirs[i] ?? b) : b));
}

const rowKey = (r: { scenario: string; difficulty: string }) => `${r.scenario}\u0000${r.difficulty}`;

function sideBySide(runs: readonly LabelledReport[], columns: readonly ComparisonColumn[], pick: (r: Report) => RateRow[]): ComparisonRow[] {
  const rows = new Map<string, ComparisonRow>();
  const order: { scenario: string; difficulty: RateRow["difficulty"] }[] = [];
  const cells = new Map<string, RateRow>();
  for (const run of runs) {
    for (const r of pick(run.report)) {
      if (!rows.has(rowKey(r))) {
        rows.set(rowKey(r), { scenario: r.scenario, difficulty: r.difficulty, cells: [] });
        order.push(r);
      }
      cells.set(`${run.label}\u0000${r.agent}\u0000${rowKey(r)}`, r);
    }
  }
  const rank = (s: string) => (s === "total" ? Number.MAX_SAFE_INTEGER : reportRank(s));
  const difficultyRank = (d: string) => ["all", "easy", "medium", "hard"].indexOf(d);
  return [...order]
    .sort((a, b) => rank(a.scenario) - rank(b.scenario) || (a.scenario < b.scenario ? -1 : a.scenario > b.scenario ? 1 : 0) || difficultyRank(a.difficulty) - difficultyRank(b.difficulty))
    .map((o) => ({
      scenario: o.scenario,
      difficulty: o.difficulty,
      cells: columns.map((c) => {
        const r = cells.get(`${c.run}\u0000${c.agent}\u0000${rowKey(o)}`);
        return r && r.samples > 0 ? { samples: r.samples, success_rate: r.success_rate, solve_rate: r.solve_rate, unjudged: r.unjudged } : null;
      }),
    }));
}

function outcomeOf(rows: readonly SampleRow[]): Outcome {
  const verdicts = new Set(rows.map((r) => r.verdict));
  const only = [...verdicts][0];
  return {
    attempts: rows.length,
    solved: rows.filter((r) => r.verdict === "solved").length,
    verdict: verdicts.size === 1 && only !== undefined ? only : "mixed",
  };
}

/**
 * Puts the reports of several runs side by side: success and solve rate per scenario and difficulty in
 * one column per run (and agent), and the samples whose share of solved attempts differs between the
 * runs that attempted them.
 */
export function compareReports(runs: readonly LabelledReport[]): Comparison {
  const columns: ComparisonColumn[] = runs.flatMap((run) =>
    run.report.agents.map((agent) => ({ run: run.label, agent, name: run.report.agents.length > 1 ? `${run.label} ${agent}` : run.label })),
  );
  const entries = new Map<string, { sample: SampleRow; variant: string; perRun: SampleRow[][] }>();
  runs.forEach((run, i) => {
    for (const s of run.report.samples) {
      const variant = variantOf(s.agent);
      const id = JSON.stringify([s.scenario, s.sample_id, variant]);
      const entry = entries.get(id) ?? { sample: s, variant, perRun: runs.map(() => []) };
      entry.perRun[i]?.push(s);
      entries.set(id, entry);
    }
  });
  const differences: Difference[] = [];
  for (const e of entries.values()) {
    const outcomes = e.perRun.map((rows) => (rows.length === 0 ? null : outcomeOf(rows)));
    const shares = new Set(outcomes.filter((o): o is Outcome => o !== null).map((o) => o.solved / o.attempts));
    if (shares.size > 1) {
      differences.push({ sample_id: e.sample.sample_id, scenario: e.sample.scenario, difficulty: e.sample.difficulty, variant: e.variant, outcomes });
    }
  }
  differences.sort(
    (a, b) =>
      reportRank(a.scenario) - reportRank(b.scenario) ||
      (a.scenario < b.scenario ? -1 : a.scenario > b.scenario ? 1 : 0) ||
      (a.sample_id < b.sample_id ? -1 : a.sample_id > b.sample_id ? 1 : 0) ||
      (a.variant < b.variant ? -1 : a.variant > b.variant ? 1 : 0),
  );
  return {
    schema_version: REPORT_SCHEMA_VERSION,
    runs: [...runs],
    columns,
    totals: sideBySide(runs, columns, (r) => r.totals),
    by_difficulty: sideBySide(runs, columns, (r) => r.by_difficulty),
    differences,
  };
}
