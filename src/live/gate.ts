import path from "node:path";
import type { Agent } from "../agents/agent.js";
import { createAgent } from "../agents/index.js";
import type { Sample } from "../dataset/sample.js";
import { runConfig } from "../runs/config.js";
import type { ResultRecord } from "../runs/record.js";
import { runBenchmark } from "../runs/runner.js";
import { RunStore } from "../runs/store.js";
import { watchedAgent, type Canary, type CanaryLedger } from "./canary.js";

/*
 * The QA gate of a release: every task is run twice through gitgood's own runner, by the oracle and by an
 * agent that leaves the start untouched. A task is kept only when the oracle solves it, the untouched start
 * does not, and an MCR task is resolvable; IR and ICC, which only a judge solves, count as solved by the
 * deterministic history checks (the rebase finished, the final tree is the chain's tip). A SWE task is
 * solved when its tests say resolved; the runner's instance validation (FAIL_TO_PASS fail and
 * PASS_TO_PASS pass at the start, the gold patch makes FAIL_TO_PASS pass) comes first, and an instance it
 * turns down is unjudged, so unsolved by the oracle.
 */

/** Why the gate dropped a task. */
export const GATE_REASONS = {
  oracle_error: "the oracle's attempt ended in a system error",
  oracle_unsolved: "the oracle did not solve it",
  start_error: "the untouched start's attempt ended in a system error",
  start_solved: "the untouched start already counts as solved",
  unresolvable: "an MCR merge that replacing conflict regions cannot reproduce",
  not_run: "the runner made no attempt of it",
} as const;
export type GateReason = keyof typeof GATE_REASONS;

/** One task the gate dropped: a sample × scenario and why. */
export interface GateDrop {
  sample_id: string;
  repository: string;
  scenario: string;
  reason: GateReason;
}

/** Seconds an attempt of the gate may take, and its turn budget: generous, since neither agent asks a model. */
const GATE_TIMEOUT_SECONDS = 600;
const GATE_MAX_TURNS = 1000;

/** The agent that does nothing: its attempt scores the task's starting point as it is. */
const untouchedStart: Agent = {
  name: "untouched-start",
  workTree: "tools",
  metered: true,
  async run() {
    return;
  },
};

/** Whether a record counts as solved: the verdict, or for an unjudged history the deterministic checks. */
function solved(r: ResultRecord): boolean {
  if (r.solved !== null) return r.solved;
  const checks = r.scores["checks"] as { finished?: unknown; tree_matches_tip?: unknown } | undefined;
  return checks?.finished === true && checks.tree_matches_tip === true;
}

/** The gate's verdict on one attempt pair. */
function verdict(sample: Sample, oracle: ResultRecord | undefined, start: ResultRecord | undefined): GateReason | null {
  if (!oracle || !start) return "not_run";
  if (oracle.scenario === "MCR" && sample.sample_type === "merge" && sample.scenario.resolvable !== true) return "unresolvable";
  if (oracle.status !== "success") return "oracle_error";
  if (start.status !== "success") return "start_error";
  if (!solved(oracle)) return "oracle_unsolved";
  if (solved(start)) return "start_solved";
  return null;
}

/** What the gate did: the samples it kept (every scenario of each passed), the tasks it dropped, the run directories it wrote. */
export interface GateOutcome {
  kept: Sample[];
  drops: GateDrop[];
  tasks: number;
  runDirs: string[];
}

/**
 * Runs the oracle and the untouched start on every scenario of every sample, in sandboxes made from the
 * scratch copies under `scratchRoot` (`owner/repo` each), each sandbox checked for the canaries before and
 * after. Run directories go below `workDir`.
 */
export async function runGate(
  samples: readonly Sample[],
  opts: { scratchRoot: string; workDir: string; jobs: number; canaries: readonly Canary[]; ledger: CanaryLedger; settings: Record<string, unknown> },
): Promise<GateOutcome> {
  const records = new Map<string, Map<string, ResultRecord>>();
  const runDirs: string[] = [];
  for (const inner of [createAgent("oracle"), untouchedStart]) {
    const dir = path.join(opts.workDir, `gate-${inner.name}`);
    runDirs.push(dir);
    const agent = watchedAgent(inner, opts.canaries, opts.ledger);
    const store = RunStore.open(dir, runConfig({ samples: ["live-release"], agent: inner.name, where: { repos: opts.scratchRoot } }, (p) => p));
    const summary = await runBenchmark({
      samples,
      where: { repos: opts.scratchRoot },
      agent,
      store,
      jobs: opts.jobs,
      spec: { timeout_s: GATE_TIMEOUT_SECONDS, max_turns: GATE_MAX_TURNS },
      judges: [],
      settings: opts.settings,
    });
    records.set(inner.name, new Map(summary.records.map((r) => [r.key, r])));
  }
  const oracle = records.get("oracle") ?? new Map<string, ResultRecord>();
  const start = records.get(untouchedStart.name) ?? new Map<string, ResultRecord>();
  const drops: GateDrop[] = [];
  const kept: Sample[] = [];
  let tasks = 0;
  const bySample = new Map<string, ResultRecord[]>();
  for (const r of oracle.values()) bySample.set(r.sample_id, [...(bySample.get(r.sample_id) ?? []), r]);
  for (const sample of samples) {
    const attempts = (bySample.get(sample.id) ?? []).sort((a, b) => (a.scenario < b.scenario ? -1 : a.scenario > b.scenario ? 1 : 0));
    const dropped: GateDrop[] = [];
    if (attempts.length === 0) dropped.push({ sample_id: sample.id, repository: sample.name, scenario: "*", reason: "not_run" });
    for (const o of attempts) {
      tasks++;
      const reason = verdict(sample, o, start.get(o.key));
      if (reason) dropped.push({ sample_id: sample.id, repository: sample.name, scenario: o.scenario, reason });
    }
    if (dropped.length === 0) kept.push(sample);
    drops.push(...dropped);
  }
  return { kept, drops, tasks, runDirs };
}

