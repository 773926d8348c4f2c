import type { Difficulty } from "../dataset/sample.js";
import { reportRank } from "../scenarios/registry.js";
import { variantOf } from "../runs/fields.js";
import { REPORT_SCHEMA_VERSION, type Report, type SampleRow } from "./summary.js";

/** One run of a comparison: its report, and the label its columns carry. */
export interface LabelledReport {
  /** Short name of the run in tables (its directory's name, or the path when two names clash). */
  label: string;
  /** The run directory as given. */
  dir: string;
  report: Report;
}

/** A column of the side-by-side tables: one agent of one run (a `--memory` run has two). */
export interface ComparisonColumn {
  run: string;
  agent: string;
  /** The column's header: the run's label, with the agent when the run has several. */
  name: string;
}

/** A quantity over a cell's attempts: its total, its mean per attempt, and the attempts it is counted over. */
export interface Measure {
  total: number;
  mean: number;
  /** The denominator: the attempts that say (every attempt, or those whose usage or price is known). */
  of: number;
}

/** One run's figures in a comparison row: samples, rates, errors, cost and tokens. */
export interface ComparisonCell {
  samples: number;
  success_rate: number | null;
  solve_rate: number | null;
  unjudged: number;
  /** Attempts that ended with a system error (`status: "error"`), of `samples`. */
  errors: number;
  /** The agent's cost in US dollars over the priced attempts (null: none is priced). */
  cost_usd: Measure | null;
  /** The agent's tokens (prompt + completion) over the attempts whose usage is known (null: none). */
  tokens: Measure | null;
  /** Turns and wall time (milliseconds) over every attempt. */
  turns: Measure;
  duration_ms: Measure;
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
export interface Difference {
  sample_id: string;
  scenario: string;
  difficulty: Difficulty;
  /** "+memory" for the with-memory attempts of a `--memory` run, else "". */
  variant: string;
  /** Per run, in the order of `runs` (null: the run did not attempt it). */
  outcomes: (Outcome | null)[];
}

/**
 * Which sample × scenario pairs the runs have in common. The side-by-side rates count only the shared
 * ones, so that runs over different samples are not compared on different denominators.
 */
export interface SampleOverlap {
  /** Sample × scenario pairs every run attempted: the rates' samples. */
  shared: number;
  /** Per run, in the order of `runs`: the pairs it attempted that some other run did not (left out of the rates). */
  only: number[];
}

/** Two or more runs side by side: rates over the samples they share, by difficulty, and the samples they disagree on. */
export interface Comparison {
  schema_version: number;
  runs: LabelledReport[];
  columns: ComparisonColumn[];
  overlap: SampleOverlap;
  /** Rates over the shared samples only (see `overlap`). */
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

/** The key a sample × scenario is shared under: the same sample of the same scenario, whatever the agent or repeat. */
const pairKey = (s: Pick<SampleRow, "scenario" | "sample_id">) => JSON.stringify([s.scenario, s.sample_id]);

/** The total and mean of the values that are known (null: none is). */
function measureOf(values: readonly (number | null)[]): Measure | null {
  const known = values.filter((v): v is number => v !== null);
  if (known.length === 0) return null;
  const total = known.reduce((a, v) => a + v, 0);
  return { total, mean: total / known.length, of: known.length };
}

/** A cell's rates, spend and effort over the attempts of one column (rates as the report's rate rows count them). */
function cellOf(rows: readonly SampleRow[]): ComparisonCell | null {
  if (rows.length === 0) return null;
  const percent = (n: number) => Math.round((n / rows.length) * 10_000) / 100;
  const unjudged = rows.filter((r) => r.verdict === "unjudged").length;
  const all = (values: number[]): Measure => measureOf(values) ?? { total: 0, mean: 0, of: 0 };
  return {
    samples: rows.length,
    success_rate: percent(rows.filter((r) => r.status === "success").length),
    solve_rate: unjudged > 0 ? null : percent(rows.filter((r) => r.verdict === "solved").length),
    unjudged,
    errors: rows.filter((r) => r.status === "error").length,
    cost_usd: measureOf(rows.map((r) => r.cost_usd)),
    tokens: measureOf(rows.map((r) => r.tokens)),
    turns: all(rows.map((r) => r.turns)),
    duration_ms: all(rows.map((r) => r.duration_ms)),
  };
}

/**
 * Rows per scenario (`byDifficulty`: and difficulty), plus a total row per scenario set, with a cell per
 * column counted over the attempts of `rows` (the shared samples) of that column's run and agent.
 */
function sideBySide(columns: readonly ComparisonColumn[], rows: readonly (SampleRow & { run: string })[], byDifficulty: boolean): ComparisonRow[] {
  const groups = new Map<string, { scenario: string; difficulty: Difficulty | "all" }>();
  for (const r of rows) {
    const g = { scenario: r.scenario, difficulty: byDifficulty ? r.difficulty : ("all" as const) };
    groups.set(rowKey(g), g);
  }
  if (!byDifficulty && rows.length > 0) groups.set(rowKey({ scenario: "total", difficulty: "all" }), { scenario: "total", difficulty: "all" });
  const rank = (s: string) => (s === "total" ? Number.MAX_SAFE_INTEGER : reportRank(s));
  const difficultyRank = (d: string) => ["all", "easy", "medium", "hard"].indexOf(d);
  return [...groups.values()]
    .sort((a, b) => rank(a.scenario) - rank(b.scenario) || (a.scenario < b.scenario ? -1 : a.scenario > b.scenario ? 1 : 0) || difficultyRank(a.difficulty) - difficultyRank(b.difficulty))
    .map((g) => ({
      scenario: g.scenario,
      difficulty: g.difficulty,
      cells: columns.map((c) =>
        cellOf(rows.filter((r) => r.run === c.run && r.agent === c.agent && (g.scenario === "total" || r.scenario === g.scenario) && (g.difficulty === "all" || r.difficulty === g.difficulty))),
      ),
    }));
}

/** The sample × scenario pairs every run attempted, and how many each run attempted that another did not. */
function overlapOf(runs: readonly LabelledReport[]): { keys: Set<string>; overlap: SampleOverlap } {
  const perRun = runs.map((run) => new Set(run.report.samples.map(pairKey)));
  const keys = new Set([...(perRun[0] ?? [])].filter((k) => perRun.every((set) => set.has(k))));
  return { keys, overlap: { shared: keys.size, only: perRun.map((set) => set.size - keys.size) } };
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
 * Puts the reports of several runs side by side: completed and solve rate, errors, cost, tokens, turns
 * and time per scenario and difficulty in one column per run (and agent), counted over the sample × scenario pairs every run attempted (`overlap`
 * says how many, and how many each run has alone), and the samples whose share of solved attempts differs between the
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
  const { keys, overlap } = overlapOf(runs);
  const shared = runs.flatMap((run) => run.report.samples.filter((s) => keys.has(pairKey(s))).map((s) => ({ ...s, run: run.label })));
  return {
    schema_version: REPORT_SCHEMA_VERSION,
    runs: [...runs],
    columns,
    overlap,
    totals: sideBySide(columns, shared, false),
    by_difficulty: sideBySide(columns, shared, true),
    differences,
  };
}
