import type { ResultRecord } from "../runs/record.js";
import { buildReport, type RateRow } from "../report/summary.js";
import { SWE_SCENARIO, agentBeatsResults, type EvalResult } from "../report/swe.js";

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
 * The data part of the green agent's `Result` artifact: for SWE tasks the AgentBeats EvalResult fields
 * at the top level (as the leaderboard's queries read them), for GitGoodBench scenarios the success and
 * solve table per scenario and difficulty, and where the run is.
 */
export type ResultData = Partial<EvalResult> & {
  participant: string;
  agent: string;
  run_dir: string;
  /** Instances that finished (a cancelled assessment reports only these). */
  finished: number;
  cancelled: boolean;
  /** The request's `green_agent_model`, echoed as the published leaderboard files carry it. */
  green_agent_model?: string;
  gitgoodbench?: ScenarioResult[];
};

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
  if (opts.scenarios.has(SWE_SCENARIO)) {
    const [swe] = agentBeatsResults(records, opts.agent, opts.role).results;
    if (swe) {
      Object.assign(data, swe);
      lines.push(
        `SWE: ${swe.total_instances} instance(s), resolved ${pct(swe.resolved_pct)}, partially ${pct(swe.partially_resolved_pct)}, ` +
          `no-op ${pct(swe.no_op_pct)}, error ${pct(swe.error_pct)}; FAIL_TO_PASS ${pct(swe.fail_to_pass_passed_pct)}, PASS_TO_PASS ${pct(swe.pass_to_pass_passed_pct)}.`,
      );
    }
  }
  const others = [...opts.scenarios].filter((s) => s !== SWE_SCENARIO);
  if (others.length > 0) {
    const report = buildReport(records.filter((r) => r.scenario !== SWE_SCENARIO));
    const wanted = (r: RateRow): boolean => others.includes(r.scenario) || r.scenario === "total";
    data.gitgoodbench = [...report.totals.filter(wanted), ...report.by_difficulty.filter((r) => wanted(r) && r.samples > 0)].map(row);
    for (const r of data.gitgoodbench.filter((x) => x.difficulty === "all" && x.samples > 0)) {
      lines.push(`${r.scenario}: ${r.samples} sample(s), success ${pct(r.success_rate)}, solve ${r.solve_rate === null ? `unjudged (${r.unjudged})` : pct(r.solve_rate)}.`);
    }
  }
  return { text: lines.join("\n"), data };
}
