import type { ResultRecord } from "../runs/record.js";
import { familyOfScenario } from "../families/registry.js";
import { buildReport, type RateRow } from "../report/summary.js";

/** One row of the GitGoodBench table of a Result: a scenario (or the total) at a difficulty (or all). */
export interface ScenarioResult {
  scenario: string;
  difficulty: string;
  samples: number;
  /** Fractions 0..1 (null for no samples, or a solve rate with unjudged samples). */
  success_rate: number | null;
  solve_rate: number | null;
  solved: number;
  unjudged: number;
}

/**
 * The data part of the green agent's `Result` artifact: the fields of each family that has its own
 * part (SWE tasks: the AgentBeats EvalResult fields at the top level, as the leaderboard's queries read
 * them), for the other scenarios the success and solve table per scenario and difficulty, and where the
 * run is.
 */
export interface ResultData {
  /** The families' own fields (the AgentBeats EvalResult's `total_instances`, `resolved_pct`, …). */
  [field: string]: unknown;
  participant: string;
  agent: string;
  run_dir: string;
  /** Instances that finished (a cancelled assessment reports only these). */
  finished: number;
  cancelled: boolean;
  /** The request's `green_agent_model`, echoed as the published leaderboard files carry it. */
  green_agent_model?: string;
  gitgoodbench?: ScenarioResult[];
}

function fraction(percent: number | null): number | null {
  return percent === null ? null : Math.round(percent * 100) / 10_000;
}

function row(r: RateRow): ScenarioResult {
  return {
    scenario: r.scenario,
    difficulty: r.difficulty,
    samples: r.samples,
    success_rate: fraction(r.success_rate),
    solve_rate: fraction(r.solve_rate),
    solved: r.solved,
    unjudged: r.unjudged,
  };
}

const pct = (f: number | null): string => (f === null ? "-" : `${(f * 100).toFixed(1)}%`);

/** The Result of an assessment: a text summary and its data part. */
export function assessmentResult(
  records: readonly ResultRecord[],
  opts: { role: string; agent: string; runDir: string; scenarios: ReadonlySet<string>; cancelled: boolean; greenAgentModel?: string },
): { text: string; data: ResultData } {
  const data: ResultData = {
    participant: opts.role,
    agent: opts.agent,
    run_dir: opts.runDir,
    finished: records.length,
    cancelled: opts.cancelled,
    ...(opts.greenAgentModel !== undefined ? { green_agent_model: opts.greenAgentModel } : {}),
  };
  const lines: string[] = [`${opts.cancelled ? "Cancelled" : "Finished"}: ${records.length} instance(s) of ${opts.agent} (${opts.role}); run directory ${opts.runDir}.`];
  // A family with its own part of the Result reports its scenarios (when asked for); the others go to the common table.
  const own = new Set<string>();
  for (const scenario of opts.scenarios) {
    const family = familyOfScenario(scenario);
    if (!family?.a2aResult || own.has(family.name)) continue;
    own.add(family.name);
    const part = family.a2aResult(records, opts.agent, opts.role);
    Object.assign(data, part.data);
    lines.push(...part.lines);
  }
  const byOwnFamily = (scenario: string): boolean => familyOfScenario(scenario)?.a2aResult !== undefined;
  const others = [...opts.scenarios].filter((s) => !byOwnFamily(s));
  if (others.length > 0) {
    const report = buildReport({ records: records.filter((r) => !byOwnFamily(r.scenario)) });
    const wanted = (r: RateRow): boolean => others.includes(r.scenario) || r.scenario === "total";
    data.gitgoodbench = [...report.totals.filter(wanted), ...report.by_difficulty.filter((r) => wanted(r) && r.samples > 0)].map(row);
    for (const r of data.gitgoodbench.filter((x) => x.difficulty === "all" && x.samples > 0)) {
      lines.push(`${r.scenario}: ${r.samples} sample(s), success ${pct(r.success_rate)}, solve ${r.solve_rate === null ? `unjudged (${r.unjudged})` : pct(r.solve_rate)}.`);
    }
  }
  return { text: lines.join("\n"), data };
}
