import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runConfig, type ModelInfo } from "../../src/runs/config.js";
import { RESULTS_SCHEMA_VERSION, type ResultRecord } from "../../src/runs/record.js";
import { RunStore } from "../../src/runs/store.js";
import { rec } from "../report/records.js";

/** One attempt of a run written in code: the task, its date (the sample's `committed_at`) and how it went. */
export interface WrittenAttempt {
  sample_id: string;
  scenario: string;
  repository: string;
  date: string | null;
  solved: boolean;
  repeat?: number;
  cost_usd?: number | null;
  usage_known?: boolean;
  history_probes?: number;
}

/** A run directory written in code: run.json with the agent, its model and the samples' digest, records and trajectories that hold the samples. */
export function writeRankedRun(
  dir: string,
  opts: { agent: string; model: string | null; digest?: string; maxTurns?: number; repeats?: number; memory?: boolean },
  attempts: readonly WrittenAttempt[],
): string {
  const model: ModelInfo | null = opts.model === null ? null : { name: opts.model, endpoint: null };
  const store = RunStore.open(
    dir,
    runConfig({ samples: ["test"], agent: opts.agent, model, ...(opts.digest !== undefined ? { samplesDigest: opts.digest } : {}), spec: { max_turns: opts.maxTurns ?? 10, ...(opts.repeats ? { repeats: opts.repeats } : {}), ...(opts.memory ? { memory: true } : {}) } }, (p) => p),
  );
  for (const a of attempts) {
    const base = rec(a.sample_id, a.scenario, { repeat: a.repeat ?? 0, solved: a.solved, agent: opts.agent });
    const sample = { id: a.sample_id, name: a.repository, scenario: a.date === null ? {} : { committed_at: a.date } };
    const trajectory = store.writeTrajectory(base.key, { schema_version: RESULTS_SCHEMA_VERSION, sample_id: a.sample_id, scenario: a.scenario, agent: opts.agent, sample, events: [] });
    const record: ResultRecord = {
      ...base,
      repository: a.repository,
      agent: opts.agent,
      trajectory,
      cost_usd: a.cost_usd === undefined ? null : a.cost_usd,
      // An agent that asks no model spends no tokens; one whose usage was not measured has none recorded.
      ...(opts.model === null ? { tokens: { prompt: 0, completion: 0 } } : {}),
      ...(a.usage_known === false ? { usage_known: false, tokens: { prompt: 0, completion: 0 } } : {}),
      ...(a.history_probes !== undefined ? { history_probes: { count: a.history_probes, commands: Array.from({ length: a.history_probes }, () => "git log --all") } } : {}),
    };
    store.append(record);
  }
  return dir;
}

/** A temporary directory for run directories and sites, removed afterwards. */
export function scratch(): { root: string; cleanup: () => void } {
  const root = mkdtempSync(path.join(os.tmpdir(), "gitgood-leaderboard-"));
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
