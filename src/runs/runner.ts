import type { Agent } from "../agents/agent.js";
import type { ModelClient } from "../model/types.js";
import type { RepoLocator } from "../dataset/clones.js";
import type { Sample } from "../dataset/sample.js";
import { RepoPool } from "../git/repo-pool.js";
import { MAX_TURNS, MEMORY, REPEATS, SCENARIOS, SHARD, TIMEOUT, specValue, type RunSpec } from "./spec.js";
import type { Isolation } from "../sandbox/isolation.js";
import { GitGoodError } from "../errors.js";
import { budgetOf, checkBudgetPrices } from "./budget.js";
import { localExecutor, type Executor, type JobContext } from "./executor.js";
import type { ResultRecord } from "./record.js";
import type { Prices } from "../model/prices.js";
import { planJobs } from "./plan.js";
import { checkModels, checkRepositories } from "./preflight.js";
import { shardJobs } from "./shard.js";
import type { Scoring } from "./settle.js";
import type { Job } from "./types.js";
import { LiveTurns } from "./live.js";
import { ProgressLog } from "./progress.js";
import { RunStore } from "./store.js";
import { RunWriter } from "./writer.js";

/** What a run attempts, with which agent, where it writes and within which limits. */
export interface RunOptions {
  /** The samples to attempt, each with every scenario that applies to it (or those the spec's `scenarios` names). */
  samples: readonly Sample[];
  /** Where each sample's repository is found (a folder of clones, or one repository). */
  where: RepoLocator;
  /** The agent that attempts each sample. */
  agent: Agent;
  /** The run directory results are written to and resumed from. */
  store: RunStore;
  /** Attempts at once. */
  jobs: number;
  /** The models that judge histories pairwise (none: unjudged). */
  judges: readonly ModelClient[];
  /** Prices of the agent's model (`--price-in`/`--price-out`), when `modelPrices` has none for it. */
  prices?: Prices;
  /** Prices per model name (the configuration's `prices:`): the agent's model and each judge's. */
  modelPrices?: Readonly<Record<string, Prices>>;
  /** The agent's model name (an llm agent's), to find its prices in `modelPrices`. */
  agentModel?: string;
  /**
   * The run's settings (`runs/spec.ts`, keyed as run.json's `spec`), the one place the runner reads them from;
   * a setting it lacks is at its default. Those of the attempts: `timeout_s` (seconds per sample × scenario,
   * default 900), `max_turns` (model turns per attempt, default 40), `repeats` (runs of every sample × scenario,
   * default 1; repeat r ≥ 1 is recorded under the key suffixed `#r`), `memory` (every scenario run twice,
   * without and with the memory tools, the agent's name suffixed `+memory`), `shard` (only part
   * `{index, count}` of the planned jobs, as `--shard K/N`; default: all of them); and `scenarios` (only
   * these, by registry name, of each sample; default: every scenario it gives) and `history` (first-parent
   * commits each sandbox gets below its starting point, or `full`; default 50).
   *
   * @example
   * ```ts
   * await runBenchmark({ samples, where, agent, store, jobs: 4, judges: [], spec: { timeout_s: 600, max_turns: 30, repeats: 3 } });
   * ```
   */
  spec?: RunSpec;
  /** Scenario settings every sandbox is set up with (MCR: `mcrTools`). */
  settings?: Record<string, unknown>;
  /** How the programs of an attempt (an external agent, anything run through `Sandbox.exec`) are isolated (default: `defaultIsolation()`). */
  isolation?: Isolation;
  /** The models the agent calls: checked, with the judges, by one small request each before the first sample runs. */
  models?: readonly ModelClient[];
  /** The caller ran `checkFreshRun` before it made the run directory: the checks are not made again. */
  checked?: boolean;
  /**
   * The source repositories `checkFreshRun` opened: the run reads through them instead of opening them again, and closes them.
   * @internal
   */
  sources?: RepoPool;
  /** Run again the attempts recorded with a system error (status `error`); their records and trajectories are replaced. */
  retryErrors?: boolean;
  /**
   * Where the jobs run (default: this process's pool, `jobs` at a time, after checking the repositories
   * and models). Another executor checks what it needs itself; its results reach the store through the
   * run's one writer all the same.
   */
  executor?: Executor;
  /** Called when a sample × scenario finishes (or is skipped as already done). */
  onResult?: (record: ResultRecord, progress: { done: number; total: number; resumed: boolean }) => void;
}

/** The counts a finished run reports. */
export interface RunSummary {
  /** Sample × scenario pairs of the dataset the agent can work. */
  total: number;
  /** Run now. */
  ran: number;
  /** Found finished in the run directory. */
  resumed: number;
  /** Scenarios the agent does not work (baselines are scenario-specific). */
  unsupported: number;
  /** Attempts the run's budget (`--budget-usd`) kept from starting: a resume starts them. */
  notStarted: number;
  /** Why they were not started, in one line (null when none was kept back). */
  budgetLine: string | null;
  records: ResultRecord[];
}

/** The jobs a run's options plan: each sample × scenario the agent works (its shard's part), and how many it does not. */
function runJobs(opts: Omit<RunOptions, "store">): { jobs: Job[]; unsupported: number } {
  const planned = planJobs(opts.samples, opts.agent, {
    scenarios: specValue(opts.spec, SCENARIOS) ?? undefined,
    memory: specValue(opts.spec, MEMORY),
    repeats: specValue(opts.spec, REPEATS),
  });
  const shard = specValue(opts.spec, SHARD);
  return { jobs: shard ? shardJobs(planned.jobs, shard) : planned.jobs, unsupported: planned.unsupported };
}

/** A wrong repository, endpoint, key or model name stops the run here, before any of `jobs` runs. */
async function checkJobs(jobs: readonly Job[], opts: Omit<RunOptions, "store">, sources: RepoPool): Promise<void> {
  await checkRepositories(jobs.map((j) => j.sample), opts.where, (dir) => sources.get(dir));
  await checkModels({ agent: opts.models ?? [], judges: opts.judges }, undefined, specValue(opts.spec, TIMEOUT));
}

/**
 * Makes the checks `runBenchmark` makes, for a run whose directory does not exist yet (every planned
 * job is to run): called before the directory is made, a failed check leaves nothing behind. The run
 * is then started with `checked: true` and, as its `sources`, the repositories opened for the checks
 * (through `opts.sources` where given; null when no job is planned); the caller closes them if it does
 * not start the run.
 */
export async function checkFreshRun(opts: Omit<RunOptions, "store">): Promise<RepoPool | null> {
  const { jobs } = runJobs(opts);
  if (jobs.length === 0) return null;
  const sources = opts.sources ?? new RepoPool();
  try {
    await checkJobs(jobs, opts, sources);
  } catch (err) {
    await sources.close();
    throw err;
  }
  return sources;
}

/** The agent's prices: its model's in `modelPrices`, else `prices`. */
function agentPricesOf(opts: Omit<RunOptions, "store">): Prices | undefined {
  return (opts.agentModel !== undefined ? opts.modelPrices?.[opts.agentModel] : undefined) ?? opts.prices;
}

/**
 * Refuses, in one line, a budget the run could not keep: one for a queue's workers (`queued`), or one
 * with a model (the agent's or a judge's) without prices. Made before the run directory is.
 */
export function checkBudget(opts: Omit<RunOptions, "store">, queued: boolean): void {
  if (queued) throw new GitGoodError("BAD_OPTION", "--budget-usd applies to attempts this process runs, not to a queue's workers");
  const prices = agentPricesOf(opts);
  checkBudgetPrices({
    agentModel: opts.agentModel,
    agentPrices: prices,
    judges: opts.judges,
    priceOf: (model) => opts.modelPrices?.[model] ?? (model === opts.agentModel ? prices : undefined),
  });
}

/**
 * Runs an agent over a dataset: every sample × scenario the agent works, `jobs` at a time, each in its
 * own sandbox with a time limit. Records are appended as each finishes; pairs already in the run
 * directory are skipped, so re-running the same command resumes an interrupted run.
 */
export async function runBenchmark(opts: RunOptions): Promise<RunSummary> {
  const planned = runJobs(opts);
  const jobs = planned.jobs;
  const prices = agentPricesOf(opts);
  const timeoutSeconds = specValue(opts.spec, TIMEOUT);
  const scoring: Scoring = {
    judges: opts.judges,
    agent: opts.agent.name,
    prices,
    priceOf: (model) => opts.modelPrices?.[model] ?? (model === opts.agentModel ? prices : undefined),
    settings: opts.settings,
    // Scoring gets as long again as the attempt had (a stalled judge cannot hold the run).
    scoreTimeoutSeconds: timeoutSeconds,
  };
  const budget = budgetOf(RunStore.readConfig(opts.store.dir).spec);
  if (budget) checkBudget(opts, opts.executor !== undefined);
  const progress = new ProgressLog(opts.store.dir);
  progress.plan(jobs.length);
  const todo = jobs.filter((j) => {
    const r = opts.store.get(j.key);
    return !r || (opts.retryErrors === true && r.status === "error");
  });
  // Each source repository is opened once for the run (or for its checks before), with one long-lived reader (closed at the end).
  const sources = opts.sources ?? new RepoPool();
  try {
    if (!opts.executor && opts.checked !== true && todo.length > 0) await checkJobs(todo, opts, sources);
    const rerun = new Set(todo.map((j) => j.key));
    let done = 0;
    for (const j of jobs) {
      const r = opts.store.get(j.key);
      if (!r || rerun.has(j.key)) continue;
      done++;
      opts.onResult?.(r, { done, total: jobs.length, resumed: true });
    }
    // The spend of the run so far: every record in its directory, the ones to be run again included (they were paid for).
    for (const r of budget ? opts.store.all() : []) budget?.add(r);
    const live = new LiveTurns(opts.store.dir);
    const ctx: JobContext = {
      agent: opts.agent,
      where: opts.where,
      timeoutSeconds,
      maxTurns: specValue(opts.spec, MAX_TURNS),
      spec: opts.spec,
      settings: opts.settings,
      isolation: opts.isolation,
      scoring,
      sources,
      watch: (job, sofar) => live.open(job.key, { sample_id: job.sample.id, scenario: job.scenario.name, agent: opts.agent.name }, sofar),
    };
    const executor = opts.executor ?? localExecutor(ctx, opts.jobs);
    const writer = new RunWriter(opts.store);
    await executor.execute(
      todo,
      (settled, job) => {
        const record = writer.write(settled);
        live.ended(job.key);
        budget?.add(record, true);
        done++;
        opts.onResult?.(record, { done, total: jobs.length, resumed: false });
      },
      // Asked just before each job starts (by this process's pool; a queue starts its jobs elsewhere and does not ask).
      (job) => {
        if (budget && !budget.admit()) return false;
        progress.started(job.key);
        return true;
      },
    );
  } finally {
    await sources.close();
  }
  const keys = new Set(jobs.map((j) => j.key));
  return {
    total: jobs.length,
    ran: todo.length - (budget?.notStarted ?? 0),
    resumed: jobs.length - todo.length,
    unsupported: planned.unsupported,
    notStarted: budget?.notStarted ?? 0,
    budgetLine: budget?.stopLine() ?? null,
    records: opts.store.all().filter((r) => keys.has(r.key)),
  };
}
