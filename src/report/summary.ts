import { DIFFICULTIES, type Difficulty } from "../dataset/sample.js";
import { costPerSolved, type CostPerSolved } from "./cost-per-solved.js";
import { faultOf } from "../errors.js";
import { failureCauses, type FailureCause } from "../runs/failures.js";
import type { ResultRecord } from "../runs/record.js";
import { reportRank, scenarioFamily, scenarioNames } from "../scenarios/registry.js";
import { extrasOf, languageOf, tokensOf, treeMatchesOf, type RecordExtras } from "../runs/fields.js";
import { repeatRow, type RepeatRow } from "./repeats.js";
import type { ReportSections } from "../families/definition.js";
import { reportSections } from "../families/registry.js";

/** Version of the `gitgood report --json` layout. */
export const REPORT_SCHEMA_VERSION = 2;

/** An agent's outcomes on one scenario and difficulty (or all): samples, completed, solved and the rates. */
export interface RateRow {
  /** The agent the row is about (a run with --memory has two: `A` and `A+memory`). */
  agent: string;
  /** A scenario's registry name, or "total". */
  scenario: string;
  difficulty: Difficulty | "all";
  samples: number;
  /** Completed: ran without a system error (solved or not). The text and HTML reports call it "completed". */
  success: number;
  solved: number;
  /** Finished without error but not judged (IR/ICC without --judge). */
  unjudged: number;
  /** Error records whose code is an infrastructure fault (git, disk, model endpoint, time-out): not the agent's doing. */
  infrastructure_errors: number;
  /** Error records whose code is the agent's fault (it crashed, gave up, went away, or a tool call it did not recover from). */
  agent_errors: number;
  /** The other error records: data (a sample or repository not as it must be), internal (a gitgood bug) and unknown codes. */
  other_errors: number;
  /** success / samples (the completed rate), in percent with two decimals; null for no samples. */
  success_rate: number | null;
  /** solved / samples in percent; null when some samples are unjudged (the rate would mislead). */
  solve_rate: number | null;
  /** Samples whose sample says it is resolvable (MCR: replacing only the conflict regions can reach the recorded merge). */
  resolvable: number;
  /** Samples whose sample says whether it is resolvable (older MCR samples and other scenarios do not). */
  resolvability_known: number;
  /** resolvable / samples in percent: the most an agent with the published tools can solve; null unless every sample says. */
  ceiling: number | null;
  /** Solved among the resolvable samples, in percent; null unless every sample says, or with unjudged samples. */
  solve_rate_resolvable: number | null;
}

/** A rate row of one language's samples. */
export interface LanguageRow extends RateRow {
  /** The samples' `programming_language` ("unknown" where a record does not say). */
  language: string;
}

/** One attempt as the report lists it: agent, key, sample, scenario, difficulty, repository, language and outcome. */
export interface SampleRow {
  agent: string;
  /** The record's key in its run (sample, scenario, memory variant, repeat). */
  key: string;
  sample_id: string;
  scenario: string;
  difficulty: Difficulty;
  repository: string;
  language: string;
  /** 0-based repeat (`--repeats`). */
  repeat: number;
  /** MCR: the sample is resolvable (null: unknown, or not MCR). */
  resolvable: boolean | null;
  /** MCR: the agent's whole tree equals the recorded merge's (null: not known, or not MCR). */
  tree_matches: boolean | null;
  status: ResultRecord["status"];
  verdict: ResultRecord["verdict"];
  turns: number;
  tool_calls: number;
  /** The agent's tokens: prompt + completion, and each; null when the record's usage is unknown. */
  tokens: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  /** What the agent's tokens cost, US dollars (null: no price for its model, or its usage is unknown). */
  cost_usd: number | null;
  /** The judges' tokens scoring this attempt (null: the record does not say). */
  judge_tokens: number | null;
  /** What the judges' tokens cost, US dollars (null: the record does not say, or a judge has no price). */
  judge_cost_usd: number | null;
  /** Model requests answered from the response cache (null: the record does not say). */
  cache_hits: number | null;
  /** Tool calls that looked outside the task (docs/history-probes.md; null: an older record without the audit). */
  history_probes: number | null;
  duration_ms: number;
  error: string | null;
  trajectory: string | null;
}

/** A report: the tables every run has, then each family's own section under its key (`swe`, `commit0`, …). */
export type Report = ReportTables & ReportSections;

/** The tables every report has, whatever families its records come from. */
export interface ReportTables {
  schema_version: number;
  agents: string[];
  totals: RateRow[];
  by_difficulty: RateRow[];
  /** Per language, per scenario and in total, as the paper's per-language tables. */
  by_language: LanguageRow[];
  /** With repeats: mean solve rate, its standard error and pass@k per scenario and difficulty; empty without. */
  repeats: RepeatRow[];
  /** Summed over the records whose usage is known (see `usage_unknown`). */
  tokens: { prompt: number; completion: number };
  /** Records whose usage is unknown (`usage_known: false`): their tokens are in no total. */
  usage_unknown: number;
  cost_usd: number | null;
  /** The judges' tokens and cost, and the response cache's hits, summed over the records that say (null: none does). */
  judge_tokens: number | null;
  judge_cost_usd: number | null;
  /** Spend (agent + judges) per solved task with a 95 % interval (a ratio estimator over attempts; null: nothing solved at a known cost). */
  cost_per_solved: CostPerSolved | null;
  cache_hits: number | null;
  samples: SampleRow[];
  /** The system errors grouped by cause (code and whole message), with the attempts each hit; the most frequent first. */
  failures: FailureCause[];
  /**
   * How the run's agent programs were isolated (run.json's `isolation.mode`), set by callers that know
   * the run; `isolated: false` only when the user asked for no isolation. Absent when unknown.
   */
  isolation?: { mode: string; isolated: boolean };
}

const percent = (n: number, d: number): number | null => (d === 0 ? null : Math.round((n / d) * 10_000) / 100);

function rate(agent: string, records: readonly ResultRecord[], scenario: RateRow["scenario"], difficulty: RateRow["difficulty"]): RateRow {
  const success = records.filter((r) => r.status === "success").length;
  const solved = records.filter((r) => r.solved === true).length;
  const unjudged = records.filter((r) => r.verdict === "unjudged").length;
  const faults = records.filter((r) => r.status === "error").map((r) => faultOf(r.error?.code ?? ""));
  const infrastructure = faults.filter((f) => f === "infrastructure").length;
  const agentFaults = faults.filter((f) => f === "agent").length;
  const known = records.filter((r) => typeof r.resolvable === "boolean");
  const resolvable = known.filter((r) => r.resolvable === true);
  const allKnown = records.length > 0 && known.length === records.length;
  return {
    agent,
    scenario,
    difficulty,
    samples: records.length,
    success,
    solved,
    unjudged,
    infrastructure_errors: infrastructure,
    agent_errors: agentFaults,
    other_errors: faults.length - infrastructure - agentFaults,
    success_rate: percent(success, records.length),
    solve_rate: unjudged > 0 ? null : percent(solved, records.length),
    resolvable: resolvable.length,
    resolvability_known: known.length,
    ceiling: allKnown ? percent(resolvable.length, records.length) : null,
    solve_rate_resolvable:
      allKnown && unjudged === 0 ? percent(resolvable.filter((r) => r.solved === true).length, resolvable.length) : null,
  };
}

/** Sums a field over the records that have it; null when none has. */
function sumKnown(values: readonly (number | null)[], digits = 0): number | null {
  const known = values.filter((v): v is number => v !== null);
  if (known.length === 0) return null;
  const scale = 10 ** digits;
  return Math.round(known.reduce((a, v) => a + v, 0) * scale) / scale;
}

/** Each registered family's section of the report, under its key, in registry order. */
function familySections(records: readonly ResultRecord[]): ReportSections {
  return Object.fromEntries(reportSections().map((section) => [section.key, section.build(records)])) as unknown as ReportSections;
}

/** What `buildReport` is given. */
export interface ReportInput {
  /** A run's result records (one per attempt); their order does not matter. */
  records: readonly ResultRecord[];
}

/** The records in the report's order: by scenario (as the registry ranks them), sample, agent and repeat. */
function orderRecords(records: readonly ResultRecord[]): ResultRecord[] {
  return [...records].sort(
    (a, b) =>
      reportRank(a.scenario) - reportRank(b.scenario) ||
      (a.scenario < b.scenario ? -1 : a.scenario > b.scenario ? 1 : 0) ||
      (a.sample_id < b.sample_id ? -1 : a.sample_id > b.sample_id ? 1 : 0) ||
      (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0) ||
      extrasOf(a).repeat - extrasOf(b).repeat,
  );
}

/**
 * The scenarios the tables have rows for, in order: every registered scenario of the families the
 * records come from (as the paper's table has IR, ICC and MCR), then any other scenario the records name.
 */
function reportScenarios(ordered: readonly ResultRecord[]): string[] {
  const families = new Set(ordered.map((r) => scenarioFamily(r.scenario)));
  return [...new Set([...scenarioNames().filter((s) => families.has(scenarioFamily(s))), ...ordered.map((r) => r.scenario)])];
}

/** Each agent's rate per scenario, then over all its records. */
function totalRows(agents: readonly string[], ordered: readonly ResultRecord[], scenarios: readonly string[]): RateRow[] {
  return agents.flatMap((agent) => {
    const mine = ordered.filter((r) => r.agent === agent);
    return [...scenarios.map((s) => rate(agent, mine.filter((r) => r.scenario === s), s, "all")), rate(agent, mine, "total", "all")];
  });
}

/** Each agent's rate per scenario and difficulty, for the pairs it has records of. */
function difficultyRows(agents: readonly string[], ordered: readonly ResultRecord[], scenarios: readonly string[]): RateRow[] {
  const rows: RateRow[] = [];
  for (const agent of agents) {
    for (const s of scenarios) {
      for (const d of DIFFICULTIES) {
        const group = ordered.filter((r) => r.agent === agent && r.scenario === s && r.difficulty === d);
        if (group.length > 0) rows.push(rate(agent, group, s, d));
      }
    }
  }
  return rows;
}

/** Each agent's rate per language: per scenario, then over the language's records. */
function languageRows(agents: readonly string[], ordered: readonly ResultRecord[], scenarios: readonly string[]): LanguageRow[] {
  const languages = [...new Set(ordered.map(languageOf))].sort();
  const rows: LanguageRow[] = [];
  for (const agent of agents) {
    for (const language of languages) {
      const spoken = ordered.filter((r) => r.agent === agent && languageOf(r) === language);
      if (spoken.length === 0) continue;
      for (const s of scenarios) {
        const group = spoken.filter((r) => r.scenario === s);
        if (group.length > 0) rows.push({ ...rate(agent, group, s, "all"), language });
      }
      rows.push({ ...rate(agent, spoken, "total", "all"), language });
    }
  }
  return rows;
}

/** Repeat statistics per agent, scenario and difficulty; none unless some agent attempted a sample × scenario more than once. */
function repeatRows(agents: readonly string[], ordered: readonly ResultRecord[], scenarios: readonly string[]): RepeatRow[] {
  const attempts = ordered.map((r) => JSON.stringify([r.agent, r.scenario, r.sample_id]));
  if (new Set(attempts).size === attempts.length) return [];
  const rows: RepeatRow[] = [];
  for (const agent of agents) {
    const mine = ordered.filter((r) => r.agent === agent);
    for (const s of scenarios) {
      const scenario = mine.filter((r) => r.scenario === s);
      if (scenario.length === 0) continue;
      rows.push(repeatRow(agent, scenario, s, "all"));
      for (const d of DIFFICULTIES) {
        const group = scenario.filter((r) => r.difficulty === d);
        if (group.length > 0) rows.push(repeatRow(agent, group, s, d));
      }
    }
    rows.push(repeatRow(agent, mine, "total", "all"));
  }
  return rows;
}

/** What the run used in all: the agents' tokens and cost, the judges' tokens and cost, the cost per solved task and cache hits. */
function usageTotals(
  ordered: readonly ResultRecord[],
  extras: readonly RecordExtras[],
): Pick<Report, "tokens" | "usage_unknown" | "cost_usd" | "judge_tokens" | "judge_cost_usd" | "cost_per_solved" | "cache_hits"> {
  const costs = ordered.map((r) => r.cost_usd);
  const known = ordered.map(tokensOf).filter((t): t is { prompt: number; completion: number } => t !== null);
  return {
    tokens: {
      prompt: known.reduce((a, t) => a + t.prompt, 0),
      completion: known.reduce((a, t) => a + t.completion, 0),
    },
    usage_unknown: ordered.length - known.length,
    cost_usd: costs.some((c) => c === null) ? null : Math.round(costs.reduce((a: number, c) => a + (c ?? 0), 0) * 1e6) / 1e6,
    judge_tokens: sumKnown(extras.map((e) => e.judge_tokens)),
    // A judge that ran without a price leaves the total unknown, not $0.
    judge_cost_usd: extras.some((e) => e.judge_cost_usd === null && (e.judge_tokens ?? 0) > 0) ? null : sumKnown(extras.map((e) => e.judge_cost_usd), 6),
    cost_per_solved: costPerSolved(ordered),
    cache_hits: sumKnown(extras.map((e) => e.cache_hits)),
  };
}

/** One record as a row of the report's sample list. */
function sampleRow(r: ResultRecord, extras: RecordExtras | undefined): SampleRow {
  return {
    agent: r.agent,
    key: r.key,
    sample_id: r.sample_id,
    scenario: r.scenario,
    difficulty: r.difficulty,
    repository: r.repository,
    language: languageOf(r),
    repeat: extras?.repeat ?? 0,
    resolvable: r.resolvable ?? null,
    tree_matches: treeMatchesOf(r),
    status: r.status,
    verdict: r.verdict,
    turns: r.turns,
    tool_calls: r.tool_calls,
    tokens: r.usage_known === false ? null : r.tokens.prompt + r.tokens.completion,
    prompt_tokens: r.usage_known === false ? null : r.tokens.prompt,
    completion_tokens: r.usage_known === false ? null : r.tokens.completion,
    cost_usd: r.cost_usd,
    judge_tokens: extras?.judge_tokens ?? null,
    judge_cost_usd: extras?.judge_cost_usd ?? null,
    cache_hits: extras?.cache_hits ?? null,
    history_probes: r.history_probes?.count ?? null,
    duration_ms: r.duration_ms,
    error: r.error ? `${r.error.code}: ${r.error.message}` : null,
    trajectory: r.trajectory,
  };
}

/**
 * The paper's tables from a run's records: success and solve rate per scenario, per difficulty and per
 * language (with the MCR ceiling where the samples say which are resolvable), repeat statistics when
 * samples were attempted more than once, and each family's section (the SWE table, commit0's).
 */
export function buildReport(input: ReportInput): Report {
  const ordered = orderRecords(input.records);
  const scenarios = reportScenarios(ordered);
  const agents = [...new Set(ordered.map((r) => r.agent))].sort();
  const extras = ordered.map(extrasOf);
  return {
    schema_version: REPORT_SCHEMA_VERSION,
    agents,
    totals: totalRows(agents, ordered, scenarios),
    by_difficulty: difficultyRows(agents, ordered, scenarios),
    by_language: languageRows(agents, ordered, scenarios),
    repeats: repeatRows(agents, ordered, scenarios),
    ...familySections(ordered),
    ...usageTotals(ordered, extras),
    samples: ordered.map((r, i) => sampleRow(r, extras[i])),
    failures: failureCauses(ordered),
  };
}
