import { DIFFICULTIES, type Difficulty } from "../dataset/sample.js";
import { faultOf } from "../errors.js";
import type { ResultRecord } from "../runs/record.js";
import { reportRank, scenarioNames } from "../scenarios/registry.js";

/** Version of the `gitgood report --json` layout. */
export const REPORT_SCHEMA_VERSION = 2;

export interface RateRow {
  /** The agent the row is about (a run with --memory has two: `A` and `A+memory`). */
  agent: string;
  /** A scenario's registry name, or "total". */
  scenario: string;
  difficulty: Difficulty | "all";
  samples: number;
  /** Ran without a system error. */
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
  /** success / samples, in percent with two decimals; null for no samples. */
  success_rate: number | null;
  /** solved / samples in percent; null when some samples are unjudged (the rate would mislead). */
  solve_rate: number | null;
}

export interface SampleRow {
  agent: string;
  sample_id: string;
  scenario: string;
  difficulty: Difficulty;
  repository: string;
  status: ResultRecord["status"];
  verdict: ResultRecord["verdict"];
  turns: number;
  tool_calls: number;
  tokens: number;
  cost_usd: number | null;
  duration_ms: number;
  error: string | null;
  trajectory: string | null;
}

export interface Report {
  schema_version: number;
  agents: string[];
  totals: RateRow[];
  by_difficulty: RateRow[];
  tokens: { prompt: number; completion: number };
  cost_usd: number | null;
  samples: SampleRow[];
}

const percent = (n: number, d: number): number | null => (d === 0 ? null : Math.round((n / d) * 10_000) / 100);

function rate(agent: string, records: readonly ResultRecord[], scenario: RateRow["scenario"], difficulty: RateRow["difficulty"]): RateRow {
  const success = records.filter((r) => r.status === "success").length;
  const solved = records.filter((r) => r.solved === true).length;
  const unjudged = records.filter((r) => r.verdict === "unjudged").length;
  const faults = records.filter((r) => r.status === "error").map((r) => faultOf(r.error?.code ?? ""));
  const infrastructure = faults.filter((f) => f === "infrastructure").length;
  const agentFaults = faults.filter((f) => f === "agent").length;
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
  };
}

/** The paper's tables from a run's records: success and solve rate per scenario and per difficulty. */
export function buildReport(records: readonly ResultRecord[]): Report {
  const ordered = [...records].sort(
    (a, b) =>
      reportRank(a.scenario) - reportRank(b.scenario) ||
      (a.scenario < b.scenario ? -1 : a.scenario > b.scenario ? 1 : 0) ||
      (a.sample_id < b.sample_id ? -1 : a.sample_id > b.sample_id ? 1 : 0),
  );
  // Every registered scenario has a row (as the paper's table has), then any other scenario the records name.
  const reportOrder = [...new Set([...scenarioNames(), ...ordered.map((r) => r.scenario)])];
  const agents = [...new Set(ordered.map((r) => r.agent))].sort();
  const totals: RateRow[] = [];
  const byDifficulty: RateRow[] = [];
  for (const agent of agents) {
    const mine = ordered.filter((r) => r.agent === agent);
    totals.push(...reportOrder.map((s) => rate(agent, mine.filter((r) => r.scenario === s), s, "all")));
    totals.push(rate(agent, mine, "total", "all"));
    for (const s of reportOrder) {
      for (const d of DIFFICULTIES) {
        const group = mine.filter((r) => r.scenario === s && r.difficulty === d);
        if (group.length > 0) byDifficulty.push(rate(agent, group, s, d));
      }
    }
  }
  const costs = ordered.map((r) => r.cost_usd);
  return {
    schema_version: REPORT_SCHEMA_VERSION,
    agents,
    totals,
    by_difficulty: byDifficulty,
    tokens: {
      prompt: ordered.reduce((a, r) => a + r.tokens.prompt, 0),
      completion: ordered.reduce((a, r) => a + r.tokens.completion, 0),
    },
    cost_usd: costs.some((c) => c === null) ? null : Math.round(costs.reduce((a: number, c) => a + (c ?? 0), 0) * 1e6) / 1e6,
    samples: ordered.map((r) => ({
      agent: r.agent,
      sample_id: r.sample_id,
      scenario: r.scenario,
      difficulty: r.difficulty,
      repository: r.repository,
      status: r.status,
      verdict: r.verdict,
      turns: r.turns,
      tool_calls: r.tool_calls,
      tokens: r.tokens.prompt + r.tokens.completion,
      cost_usd: r.cost_usd,
      duration_ms: r.duration_ms,
      error: r.error ? `${r.error.code}: ${r.error.message}` : null,
      trajectory: r.trajectory,
    })),
  };
}
