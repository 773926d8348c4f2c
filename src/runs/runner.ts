import type { Agent } from "../agents/agent.js";
import { inCacheScope } from "../model/cache.js";
import type { ModelClient } from "../model/types.js";
import { repositoryPath, type RepoLocator } from "../dataset/clones.js";
import type { Sample } from "../dataset/sample.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import type { PackCache } from "../git/packs.js";
import { RepoPool } from "../git/repo-pool.js";
import type { HistoryDepth } from "../git/store.js";
import { StepLog } from "../memory/steps.js";
import { MEMORY_TOOLS, scratchMemory } from "../memory/tools.js";
import type { LiveScenario } from "../scenarios/types.js";
import { runPackCache } from "../sandbox/packs.js";
import type { Isolation } from "../sandbox/isolation.js";
import { removingInBackground } from "../util/cleanup.js";
import { mapPool } from "../util/pool.js";
import type { ResultRecord } from "./record.js";
import { repeatCacheScope, type Prices } from "./result.js";
import { ToolBroker } from "./broker.js";
import { planJobs, type Job } from "./plan.js";
import { checkModels, checkRepositories } from "./preflight.js";
import { AgentSession, toolProvider, type ToolProvider, type TrajectoryEntry } from "./session.js";
import { settle, type Attempt, type Recorder } from "./settle.js";
import type { RunStore } from "./store.js";

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
  /** Prices of the agent's model (`--price-in`/`--price-out`), when `modelPrices` has none for it. */
  prices?: Prices;
  /** Prices per model name (the configuration's `prices:`): the agent's model and each judge's. */
  modelPrices?: Readonly<Record<string, Prices>>;
  /** The agent's model name (an llm agent's), to find its prices in `modelPrices`. */
  agentModel?: string;
  /** Only these scenarios (registry names, any case) of each sample; default: every scenario it gives. */
  scenarios?: readonly string[];
  /** Runs of every sample × scenario (default 1); repeat r ≥ 1 is recorded under the key suffixed `#r`. */
  repeats?: number;
  /** Run every scenario twice: without and with the memory tools (agent name suffixed `+memory`). */
  memory?: boolean;
  /** First-parent commits of history each sandbox gets below its starting point, or `full` (default: DEFAULT_HISTORY). */
  history?: HistoryDepth;
  /** Scenario settings every sandbox is set up with (MCR: `mcrTools`). */
  settings?: Record<string, unknown>;
  /** How the programs of an attempt (an external agent, anything run through `Sandbox.exec`) are isolated (default: `defaultIsolation()`). */
  isolation?: Isolation;
  /** The models the agent calls: checked, with the judges, by one small request each before the first sample runs. */
  models?: readonly ModelClient[];
  /** Run again the attempts recorded with a system error (status `error`); their records and trajectories are replaced. */
  retryErrors?: boolean;
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
  /** Scenarios the agent does not work (baselines are scenario-specific). */
  unsupported: number;
  records: ResultRecord[];
}

function timeoutError(seconds: number): GitGoodError {
  return new GitGoodError("TIMEOUT", `the agent did not finish within ${seconds} s`);
}

/** Rejects with TIMEOUT when `signal` aborts (at once if it has already). */
function timeoutOf(signal: AbortSignal, seconds: number): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(timeoutError(seconds));
    else signal.addEventListener("abort", () => reject(timeoutError(seconds)), { once: true });
  });
}

/** Runs the agent on one scenario in its own sandbox and settles the attempt. Never throws. */
async function runJob(job: Job, opts: RunOptions, recorder: Recorder, packs: PackCache, sources: RepoPool): Promise<ResultRecord> {
  const attempt: Attempt = {
    sample: job.sample,
    scenario: job.scenario,
    memory: job.memory,
    repeat: job.repeat,
    startedAt: new Date(),
    live: null,
    source: null,
    session: null,
    context: null,
  };
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, opts.timeoutSeconds * 1000);
  let broker: ToolBroker | null = null;
  let steps: StepLog | null = null;
  try {
    attempt.source = await sources.get(repositoryPath(opts.where, job.sample));
    const setup = { history: opts.history, workTree: opts.agent.workTree ?? "full", packs, settings: opts.settings };
    const live: LiveScenario = await job.scenario.setup(job.sample, attempt.source, setup);
    attempt.live = live;
    if (opts.isolation) live.sandbox.isolate(opts.isolation);
    attempt.context = await live.initialContext();
    let extra: ToolProvider | null = null;
    if (job.memory) {
      const goal = `${attempt.context.text.split("\n")[0] ?? "Solve the scenario"} Finish the task with the scenario's tools.`;
      const ws = await scratchMemory(live.sandbox.privatePath("memory"), goal);
      const log = new StepLog(ws);
      const tools = toolProvider(MEMORY_TOOLS, ws);
      // A memory tool sees every step logged before it was called.
      extra = { ...tools, call: async (name, args) => (await log.flush(), tools.call(name, args)) };
      steps = log;
    }
    attempt.session = new AgentSession(live, attempt.context, opts.maxTurns, controller.signal, extra);
    if (steps) attempt.session.observer = stepObserver(steps);
    if (opts.agent.external) {
      broker = await ToolBroker.open(attempt.session);
      attempt.session.toolEndpoint = broker;
    }
    // A scenario finished at set-up (a SWE instance that failed its own validation) gets no agent.
    const work = live.isDone() ? Promise.resolve() : opts.agent.run(attempt.session);
    work.catch(() => undefined); // after a time-out its late failure is of no interest
    await Promise.race([work, timeoutOf(controller.signal, opts.timeoutSeconds)]);
    // An agent that stopped because its time ran out (during set-up, say) did not finish.
    if (timedOut) throw timeoutError(opts.timeoutSeconds);
    controller.abort();
    // No call may change the scenario while it is scored.
    await broker?.close();
    await steps?.flush();
    return await settle(attempt, recorder);
  } catch (err) {
    controller.abort();
    await broker?.close();
    await steps?.flush();
    return settle(attempt, recorder, toGitGoodError(err));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The steps of an attempt as the paper's log.md records them: what the model thought (its text), and
 * each tool call as an action with its result as the observation (an external agent's calls too).
 */
function stepObserver(steps: StepLog): (entry: TrajectoryEntry) => void {
  let pending: string | null = null;
  return (entry) => {
    if (entry.type === "model" && entry.message.role === "assistant" && typeof entry.message.content === "string") {
      steps.add({ thought: entry.message.content });
    } else if (entry.type === "tool_call") {
      pending = `${entry.tool} ${JSON.stringify(entry.args) ?? ""}`;
    } else if (entry.type === "tool_result") {
      steps.add({ action: pending ?? entry.tool, observation: `${entry.ok ? "" : "(failed) "}${entry.output}` });
      pending = null;
    }
  };
}

/**
 * Runs an agent over a dataset: every sample × scenario the agent works, `jobs` at a time, each in its
 * own sandbox with a time limit. Records are appended as each finishes; pairs already in the run
 * directory are skipped, so re-running the same command resumes an interrupted run.
 */
export async function runBenchmark(opts: RunOptions): Promise<RunSummary> {
  const { jobs, unsupported } = planJobs(opts.samples, opts.agent, { scenarios: opts.scenarios, memory: opts.memory, repeats: opts.repeats });
  const prices = (opts.agentModel !== undefined ? opts.modelPrices?.[opts.agentModel] : undefined) ?? opts.prices;
  const recorder: Recorder = {
    store: opts.store,
    judges: opts.judges,
    agent: opts.agent.name,
    prices,
    priceOf: (model) => opts.modelPrices?.[model] ?? (model === opts.agentModel ? prices : undefined),
    settings: opts.settings,
    // Scoring gets as long again as the attempt had (a stalled judge cannot hold the run).
    scoreTimeoutSeconds: opts.timeoutSeconds,
  };
  const todo = jobs.filter((j) => {
    const r = opts.store.get(j.key);
    return !r || (opts.retryErrors === true && r.status === "error");
  });
  // Each source repository is opened once for the run, with one long-lived reader (closed at the end).
  const sources = new RepoPool();
  try {
    return { ...(await runTodo(opts, jobs, todo, recorder, sources)), unsupported };
  } finally {
    await sources.close();
  }
}

/** Runs the jobs still to do, with the run's open source repositories. */
async function runTodo(opts: RunOptions, jobs: readonly Job[], todo: readonly Job[], recorder: Recorder, sources: RepoPool): Promise<Omit<RunSummary, "unsupported">> {
  // A wrong repository, endpoint, key or model name stops the run here, before any sample runs.
  if (todo.length > 0) await checkRepositories(todo.map((j) => j.sample), opts.where, (dir) => sources.get(dir));
  if (todo.length > 0) await checkModels({ agent: opts.models ?? [], judges: opts.judges }, undefined, opts.timeoutSeconds);
  const rerun = new Set(todo.map((j) => j.key));
  let done = 0;
  for (const j of jobs) {
    const r = opts.store.get(j.key);
    if (!r || rerun.has(j.key)) continue;
    done++;
    opts.onResult?.(r, { done, total: jobs.length, resumed: true });
  }
  // Packs are built once per starting point and reused by the run's sandboxes (IR and ICC of a chain, reruns).
  const packs = runPackCache();
  try {
    // A repeat's model answers are cached apart from the other repeats' (each is a sample of its own).
    const work = (j: Job) => inCacheScope(repeatCacheScope(j.repeat), () => runJob(j, opts, recorder, packs.cache, sources));
    // Sandboxes are deleted off the event loop, which the parallel attempts share (util/cleanup.ts).
    await removingInBackground(async () => {
      for await (const record of mapPool(todo, opts.jobs, work)) {
        done++;
        opts.onResult?.(record, { done, total: jobs.length, resumed: false });
      }
    });
  } finally {
    packs.remove();
  }
  const keys = new Set(jobs.map((j) => j.key));
  return {
    total: jobs.length,
    ran: todo.length,
    resumed: jobs.length - todo.length,
    records: opts.store.all().filter((r) => keys.has(r.key)),
  };
}
