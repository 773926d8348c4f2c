import { costPerSolved } from "../report/cost-per-solved.js";
import { repeatRow } from "../report/repeats.js";
import { probeRates } from "../report/skills.js";
import { attemptSpend } from "../runs/budget.js";
import { GITGOOD_VERSION } from "../runs/config.js";
import { tokensOf } from "../runs/fields.js";
import type { ResultRecord } from "../runs/record.js";
import { REPEATS, specValue } from "../runs/spec.js";
import { scenarioFamily } from "../scenarios/registry.js";
import { possiblyContaminated, type Cutoffs } from "./models.js";
import type { RankedRun } from "./runs.js";
import { LEADERBOARD_SCHEMA_VERSION, TASK_FILTERS, type Leaderboard, type LeaderboardEntry, type LeaderboardTask, type LeaderboardView, type TaskFilter } from "./schema.js";

/** One row of every view: an agent of a run (a `--memory` run has two), with its model and that model's cut-off. */
interface Column {
  run: RankedRun;
  agent: string;
  name: string;
  model: string | null;
  cutoff: string | null;
  contamination: LeaderboardEntry["contamination"];
}

/** What the leaderboard is built from besides the runs. */
export interface LeaderboardInput {
  title: string;
  /** models.yaml: each model's training cut-off. */
  cutoffs: Cutoffs;
  /** What differs between the runs, when they are ranked anyway (`--allow-mixed`); null when nothing does. */
  mixed: readonly string[] | null;
}

const taskKey = (r: Pick<ResultRecord, "scenario" | "sample_id">): string => JSON.stringify([r.scenario, r.sample_id]);
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;
const mean = (values: readonly number[], digits: number): number | null => (values.length === 0 ? null : round(values.reduce((a, v) => a + v, 0) / values.length, digits));

function columnsOf(runs: readonly RankedRun[], cutoffs: Cutoffs): Column[] {
  return runs.flatMap((run) => {
    const agents = [...new Set(run.records.map((r) => r.agent))].sort(byText);
    const model = run.config.identity.model?.name ?? null;
    const cutoff = model === null ? null : (cutoffs.get(model) ?? null);
    const contamination = model === null ? "no_model" : cutoff === null ? "cutoff_unknown" : "cutoff_known";
    return agents.map((agent) => ({ run, agent, name: agents.length > 1 ? `${run.label} ${agent}` : run.label, model, cutoff, contamination }));
  });
}

/** The records a column counts under the task filter: all, or those its model cannot have trained on. */
function keptRecords(column: Column, records: readonly ResultRecord[], filter: TaskFilter): ResultRecord[] {
  if (filter === "all" || column.contamination === "no_model") return [...records];
  const cutoff = column.cutoff;
  if (cutoff === null) return [];
  return records.filter((r) => !possiblyContaminated(column.run.dates.get(r.sample_id) ?? null, cutoff));
}

/** A column's numbers over some of its records: solve rate and its error, pass@k, cost, tokens, time, tool calls and probes. */
function entryOf(column: Column, records: readonly ResultRecord[], filter: TaskFilter): LeaderboardEntry {
  const kept = keptRecords(column, records, filter);
  const repeats = repeatRow(column.agent, kept, "total", "all");
  const spends = kept.map(attemptSpend);
  const known = spends.filter((s): s is number => s !== null);
  const tokens = kept.map(tokensOf).filter((t): t is { prompt: number; completion: number } => t !== null);
  const probes = probeRates(kept)[0];
  const allCosted = kept.length > 0 && known.length === kept.length;
  return {
    rank: null,
    run: column.run.label,
    agent: column.agent,
    name: column.name,
    model: column.model,
    cutoff: column.cutoff,
    contamination: column.contamination,
    tasks: repeats.samples,
    attempts: kept.length,
    excluded_tasks: new Set(records.map(taskKey)).size - repeats.samples,
    k: repeats.k,
    solved: kept.filter((r) => r.solved === true).length,
    unjudged: repeats.unjudged,
    solve_rate: repeats.mean_solve_rate,
    standard_error: repeats.standard_error,
    pass_at_k: repeats.pass_at_k,
    cost_usd: allCosted ? round(known.reduce((a, s) => a + s, 0), 6) : null,
    cost_per_attempt_usd: allCosted ? mean(known, 6) : null,
    cost_unknown: kept.length - known.length,
    cost_per_solved: costPerSolved(kept),
    usage_unknown: kept.length - tokens.length,
    tokens: { prompt: tokens.reduce((a, t) => a + t.prompt, 0), completion: tokens.reduce((a, t) => a + t.completion, 0) },
    tokens_per_attempt: mean(tokens.map((t) => t.prompt + t.completion), 1),
    seconds_per_attempt: mean(kept.map((r) => r.duration_ms / 1000), 2),
    tool_calls_per_attempt: mean(kept.map((r) => r.tool_calls), 2),
    history_probes: probes
      ? { audited: probes.attempts, probing: probes.probing, probes: probes.probes, rate: round(probes.rate * 100, 2) }
      : { audited: 0, probing: 0, probes: 0, rate: null },
    pareto: false,
  };
}

/** Marks the entries no other entry beats on both cost per attempt and solve rate (those with both known). */
function markPareto(entries: readonly LeaderboardEntry[]): void {
  const points = entries.flatMap((e) => (e.solve_rate !== null && e.cost_per_attempt_usd !== null ? [{ e, cost: e.cost_per_attempt_usd, solve: e.solve_rate }] : []));
  for (const p of points) {
    p.e.pareto = !points.some((o) => o !== p && o.cost <= p.cost && o.solve >= p.solve && (o.cost < p.cost || o.solve > p.solve));
  }
}

/** Best first: by solve rate, then the cheaper per solved task, then by name; ranks given to those with a solve rate (ties share one). */
function ranked(entries: LeaderboardEntry[]): LeaderboardEntry[] {
  const cost = (e: LeaderboardEntry) => e.cost_per_solved?.usd ?? Number.POSITIVE_INFINITY;
  const sorted = [...entries].sort((a, b) => (b.solve_rate ?? -1) - (a.solve_rate ?? -1) || cost(a) - cost(b) || byText(a.name, b.name));
  sorted.forEach((e, i) => {
    const previous = sorted[i - 1];
    e.rank = e.solve_rate === null ? null : previous && previous.solve_rate === e.solve_rate ? previous.rank : i + 1;
  });
  markPareto(sorted);
  return sorted;
}

/** Every task the runs attempted, in family, repository and id order, with its date and the models it may have leaked to. */
function tasksOf(runs: readonly RankedRun[], columns: readonly Column[]): LeaderboardTask[] {
  const tasks = new Map<string, LeaderboardTask>();
  const withCutoff = [...new Map(columns.flatMap((c) => (c.model !== null && c.cutoff !== null ? [[c.model, c.cutoff] as const] : []))).entries()];
  for (const run of runs) {
    for (const r of run.records) {
      const key = taskKey(r);
      const date = run.dates.get(r.sample_id) ?? null;
      const task = tasks.get(key);
      if (task && (task.date !== null || date === null)) continue;
      tasks.set(key, {
        sample_id: r.sample_id,
        scenario: r.scenario,
        family: scenarioFamily(r.scenario),
        repository: r.repository,
        date,
        possibly_contaminated_for: withCutoff.filter(([, cutoff]) => possiblyContaminated(date, cutoff)).map(([model]) => model).sort(byText),
      });
    }
  }
  return [...tasks.values()].sort((a, b) => byText(a.family, b.family) || byText(a.repository, b.repository) || byText(a.sample_id, b.sample_id) || byText(a.scenario, b.scenario));
}

/** The views: every family (and all), every repository (and all), each task filter; a family × repository with no task has none. */
function viewsOf(columns: readonly Column[], families: readonly string[], repositories: readonly string[]): LeaderboardView[] {
  const views: LeaderboardView[] = [];
  for (const family of [null, ...families]) {
    for (const repository of [null, ...repositories]) {
      const select = (r: ResultRecord) => (family === null || scenarioFamily(r.scenario) === family) && (repository === null || r.repository === repository);
      const perColumn = columns.map((c) => c.run.records.filter((r) => r.agent === c.agent && select(r)));
      if (perColumn.every((records) => records.length === 0)) continue;
      for (const tasks of TASK_FILTERS) {
        views.push({ family, repository, tasks, entries: ranked(columns.map((c, i) => entryOf(c, perColumn[i] ?? [], tasks))) });
      }
    }
  }
  return views;
}

/** The leaderboard of some runs: per agent and model, and per family and repository, with and without the tasks its model may have seen. */
export function buildLeaderboard(runs: readonly RankedRun[], input: LeaderboardInput): Leaderboard {
  const columns = columnsOf(runs, input.cutoffs);
  const tasks = tasksOf(runs, columns);
  const families = [...new Set(tasks.map((t) => t.family))].sort(byText);
  const repositories = [...new Set(tasks.map((t) => t.repository))].sort(byText);
  return {
    schema_version: LEADERBOARD_SCHEMA_VERSION,
    title: input.title,
    gitgood_version: GITGOOD_VERSION,
    runs: runs.map((run) => ({
      label: run.label,
      agents: [...new Set(run.records.map((r) => r.agent))].sort(byText),
      model: run.config.identity.model?.name ?? null,
      samples_digest: run.config.identity.samples_digest ?? null,
      repeats: specValue(run.config.identity.spec, REPEATS),
    })),
    mixed: input.mixed === null || input.mixed.length === 0 ? null : [...input.mixed],
    models: [...input.cutoffs].map(([model, cutoff]) => ({ model, cutoff })).sort((a, b) => byText(a.model, b.model)),
    families,
    repositories,
    tasks,
    views: viewsOf(columns, families, repositories),
  };
}
