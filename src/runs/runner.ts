import { existsSync } from "node:fs";
import path from "node:path";
import { AgentSession, toolProvider, type Agent, type ToolProvider } from "../agents/agent.js";
import type { ModelClient } from "../model/types.js";
import type { Sample } from "../dataset/sample.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { Repo } from "../git/repo.js";
import { MEMORY_TOOLS, scratchMemory } from "../memory/tools.js";
import { kindsOf, openScenario, setupScenario } from "../scenarios/index.js";
import type { ScenarioKind } from "../scenarios/types.js";
import { scoreFinal } from "../scoring/final.js";
import { mapPool } from "../util/pool.js";
import { resultKey, type ResultRecord } from "./record.js";
import { LABELS, MEMORY_VARIANT, resultRecord, type Prices, type RecordInput } from "./result.js";
import type { RunStore } from "./store.js";


/** Where each sample's repository is: one repository for all, or `DIR/owner/repo` clones. */
export type RepoLocator = { repo: string } | { repos: string };

export function repositoryPath(where: RepoLocator, sample: Sample): string {
  if ("repo" in where) return where.repo;
  const [owner, name] = sample.name.split("/");
  if (!owner || !name || owner === ".." || name === "..") {
    throw new GitGoodError("BAD_SAMPLE", `sample ${sample.id} names no owner/repo: '${sample.name}'`);
  }
  for (const candidate of [path.join(where.repos, owner, name), path.join(where.repos, owner, `${name}.git`)]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new GitGoodError("REPO_NOT_FOUND", `no clone of ${sample.name} under ${where.repos} (expected ${owner}/${name})`, {
    name: sample.name,
  });
}


export interface RunOptions {
  samples: readonly Sample[];
  where: RepoLocator;
  agent: Agent;
  store: RunStore;
  jobs: number;
  /** Per sample × scenario, seconds. */
  timeoutSeconds: number;
  maxTurns: number;
  judges: readonly ModelClient[];
  prices?: Prices;
  /** Run every scenario twice: without and with the memory tools (agent name suffixed `+memory`). */
  memory?: boolean;
  /** Called when a sample × scenario finishes (or is skipped as already done). */
  onResult?: (record: ResultRecord, progress: { done: number; total: number; resumed: boolean }) => void;
}

export interface RunSummary {
  /** Sample × scenario pairs of the dataset the agent can work. */
  total: number;
  /** Run now. */
  ran: number;
  /** Found finished in the run directory. */
  resumed: number;
  /** Scenario kinds the agent does not work (baselines are scenario-specific). */
  unsupported: number;
  records: ResultRecord[];
}

interface Job {
  sample: Sample;
  kind: ScenarioKind;
  key: string;
  /** This run of the scenario offers the agent the memory tools. */
  memory: boolean;
}


function stats(session: AgentSession | null): Pick<RecordInput, "turns" | "toolCalls" | "tokens"> {
  return {
    turns: session?.turns ?? 0,
    toolCalls: session?.toolCalls ?? 0,
    tokens: { prompt: session?.usage.prompt_tokens ?? 0, completion: session?.usage.completion_tokens ?? 0 },
  };
}


/** Runs the agent on one scenario in its own sandbox and scores the outcome. Never throws. */
async function runJob(job: Job, opts: RunOptions): Promise<ResultRecord> {
  const startedAt = new Date();
  const t0 = Date.now();
  const label = LABELS[job.kind];
  let session: AgentSession | null = null;
  const trajectory: Record<string, unknown> = {
    sample_id: job.sample.id,
    scenario: label,
    agent: `${opts.agent.name}${job.memory ? MEMORY_VARIANT : ""}`,
  };
  const finish = (outcome: RecordInput["outcome"]): ResultRecord =>
    resultRecord({
      ...stats(session),
      sample: job.sample,
      kind: job.kind,
      agent: opts.agent.name,
      startedAt,
      durationMs: Date.now() - t0,
      prices: opts.prices,
      trajectory: opts.store.writeTrajectory(job.key, trajectory),
      memory: job.memory,
      outcome,
    });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeoutSeconds * 1000);
  try {
    const source = await Repo.open(repositoryPath(opts.where, job.sample));
    const scenario = await setupScenario(job.sample, source, { kind: job.kind });
    try {
      const context = await scenario.initialContext();
      trajectory.context = context.data;
      let extra: ToolProvider | null = null;
      if (job.memory) {
        const goal = `${context.text.split("\n")[0] ?? "Solve the scenario"} Finish the task with the scenario's tools.`;
        extra = toolProvider(MEMORY_TOOLS, await scratchMemory(scenario.sandbox.privatePath("memory"), goal));
      }
      session = new AgentSession(scenario, context, opts.maxTurns, controller.signal, extra);
      const timedOut = new Promise<never>((_, reject) =>
        controller.signal.addEventListener("abort", () =>
          reject(new GitGoodError("TIMEOUT", `the agent did not finish within ${opts.timeoutSeconds} s`)),
        ),
      );
      const work = opts.agent.run(session);
      work.catch(() => undefined); // after a time-out its late failure is of no interest
      await Promise.race([work, timedOut]);
      // An agent that acted through `gitgood tool` changed the scenario's saved state, not this object's.
      const live = session.stateChangedOutside ? await openScenario(scenario.sandbox.dir) : scenario;
      const final = await live.finalState();
      trajectory.final = final;
      const scored = await scoreFinal(job.sample, live, final, source, opts.judges);
      trajectory.ground_truth_diff = scored.groundTruthDiff;
      trajectory.events = session.events;
      trajectory.scores = scored.scores;
      return finish({ scored });
    } finally {
      controller.abort();
      scenario.close();
    }
  } catch (err) {
    const e = toGitGoodError(err);
    trajectory.events = session?.events ?? [];
    trajectory.error = e.toJSON();
    return finish({ error: e });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs an agent over a dataset: every sample × scenario the agent works, `jobs` at a time, each in its
 * own sandbox with a time limit. Records are appended as each finishes; pairs already in the run
 * directory are skipped, so re-running the same command resumes an interrupted run.
 */
export async function runBenchmark(opts: RunOptions): Promise<RunSummary> {
  const jobs: Job[] = [];
  let unsupported = 0;
  for (const sample of opts.samples) {
    for (const kind of kindsOf(sample)) {
      if (!opts.agent.supports(kind)) {
        unsupported++;
        continue;
      }
      for (const memory of opts.memory ? [false, true] : [false]) {
        jobs.push({ sample, kind, memory, key: `${resultKey(sample.id, LABELS[kind])}${memory ? MEMORY_VARIANT : ""}` });
      }
    }
  }
  const todo = jobs.filter((j) => !opts.store.has(j.key));
  const resumed = jobs.length - todo.length;
  let done = 0;
  for (const j of jobs) {
    if (!opts.store.has(j.key)) continue;
    done++;
    const r = opts.store.get(j.key);
    if (r) opts.onResult?.(r, { done, total: jobs.length, resumed: true });
  }
  for await (const record of mapPool(todo, opts.jobs, (j) => runJob(j, opts))) {
    opts.store.append(record);
    done++;
    opts.onResult?.(record, { done, total: jobs.length, resumed: false });
  }
  const keys = new Set(jobs.map((j) => j.key));
  return {
    total: jobs.length,
    ran: todo.length,
    resumed,
    unsupported,
    records: opts.store.all().filter((r) => keys.has(r.key)),
  };
}
