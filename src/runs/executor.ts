import type { Agent } from "../agents/agent.js";
import { inCacheScope } from "../model/cache.js";
import { repositoryPath, type RepoLocator } from "../dataset/clones.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import type { PackCache } from "../git/packs.js";
import type { RepoPool } from "../git/repo-pool.js";
import { useGitThreads } from "../git/threads.js";
import { Repo } from "../git/repo.js";
import { HISTORY, specValue, type RunSpec } from "./spec.js";
import type { StepLog } from "../memory/steps.js";
import type { LiveScenario } from "../scenarios/types.js";
import { runPackCache } from "../sandbox/packs.js";
import { limitExceeded, type Isolation } from "../sandbox/isolation.js";
import { removingInBackground } from "../util/cleanup.js";
import { mapPool } from "../util/pool.js";
import { repeatCacheScope } from "./result.js";
import { ToolBroker } from "./broker.js";
import type { Job } from "./plan.js";
import { AgentSession, toolProvider, type ToolProvider, type TrajectoryEntry, type TrajectoryEvent } from "./session.js";
import { settleAttempt, type Attempt, type Scoring, type Settled } from "./settle.js";

/**
 * Runs planned jobs somewhere and hands back each one settled: the seam between planning a run and
 * running its attempts. An executor writes nothing to the run directory; the runner gives every result
 * to the run's one writer (`RunWriter`). This process's pool (`localExecutor`) is one executor; one that
 * sends jobs to other processes or machines turns each job into a `JobTicket` (`ticketFor`) and has
 * `runTicket` run it there.
 */
export interface Executor {
  /**
   * Runs every job, calling `settled` with each one's result as it finishes (in any order), and resolves
   * when all have. A job's own failure is its record's error, never a rejection; a rejection means the
   * executor itself failed (and the jobs without a result run again when the run is resumed).
   */
  execute(jobs: readonly Job[], settled: (result: Settled, job: Job) => void, admit?: Admit): Promise<void>;
}

/**
 * Asked just before a job would start: false leaves it unstarted (no result, no record: a resumed run
 * starts it). The run's budget is such a gate; jobs already started finish.
 */
export type Admit = (job: Job) => boolean;

/** What every attempt of a run is given: the live agent, where the repositories are, the limits. */
export interface JobContext {
  agent: Agent;
  where: RepoLocator;
  /** Per attempt, seconds (scoring gets as long again). */
  timeoutSeconds: number;
  maxTurns: number;
  /** The run's settings: each sandbox gets the spec's `history` (default 50). */
  spec?: RunSpec;
  /** Scenario settings every sandbox is set up with (MCR: `mcrTools`; the families' under their keys). */
  settings?: Record<string, unknown>;
  /** How the programs of an attempt are isolated (default: the sandbox's own default). */
  isolation?: Isolation;
  /** The judges, prices and agent name the attempt is settled with. */
  scoring: Scoring;
  /** The run's open source repositories, each opened once with its long-lived reader (default: opened per attempt). */
  sources?: RepoPool;
  /**
   * Given each attempt's job and its events so far when its session opens, returns what is told of each
   * later event (the runner's live turns file); absent, no one is told.
   */
  watch?: (job: Job, sofar: readonly TrajectoryEvent[]) => (event: TrajectoryEvent) => void;
}

function timeoutError(seconds: number): GitGoodError {
  return new GitGoodError("TIMEOUT", `the agent did not finish within ${seconds} s`);
}

/** Rejects with `why()` (a TIMEOUT, or the limit a program ran into) when `signal` aborts (at once if it has already). */
function stoppedBy(signal: AbortSignal, why: () => GitGoodError): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(why());
    else signal.addEventListener("abort", () => reject(why()), { once: true });
  });
}

/**
 * Runs the agent on one job in its own sandbox, with its time limit, and settles the attempt: in this
 * process, with packs from `packs`, inside the job's repeat's response-cache scope. Never throws.
 */
export function attemptJob(job: Job, ctx: JobContext, packs: PackCache): Promise<Settled> {
  // A repeat's model answers are cached apart from the other repeats' (each is a sample of its own).
  return inCacheScope(repeatCacheScope(job.repeat), () => attempt(job, ctx, packs));
}

async function attempt(job: Job, ctx: JobContext, packs: PackCache): Promise<Settled> {
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
  let overLimit: GitGoodError | null = null;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, ctx.timeoutSeconds * 1000);
  let broker: ToolBroker | null = null;
  let steps: StepLog | null = null;
  try {
    const location = repositoryPath(ctx.where, job.sample);
    attempt.source = await (ctx.sources ? ctx.sources.get(location) : Repo.open(location));
    const setup = { history: specValue(ctx.spec, HISTORY), workTree: ctx.agent.workTree ?? "full", packs, settings: ctx.settings };
    const live: LiveScenario = await job.scenario.setup(job.sample, attempt.source, setup);
    attempt.live = live;
    // No other process opens an attempt's sandbox: its tool calls skip the lock file and the saved state.
    live.sandbox.holdAlone();
    if (ctx.isolation) live.sandbox.isolate(ctx.isolation);
    // A program of the attempt that runs into a limit of its jail ends the attempt, as the agent's failure.
    live.sandbox.onLimit = (limit) => {
      overLimit = limitExceeded(live.sandbox.isolation, limit);
      controller.abort();
    };
    attempt.context = await live.initialContext();
    let extra: ToolProvider | null = null;
    if (job.memory) {
      const goal = `${attempt.context.text.split("\n")[0] ?? "Solve the scenario"} Finish the task with the scenario's tools.`;
      // The memory tools are loaded by the attempts that offer them alone: about twenty modules a run's start would read.
      const [{ StepLog }, { MEMORY_TOOLS, scratchMemory }] = await Promise.all([import("../memory/steps.js"), import("../memory/tools.js")]);
      const ws = await scratchMemory(live.sandbox.privatePath("memory"), goal);
      const log = new StepLog(ws);
      const tools = toolProvider(MEMORY_TOOLS, ws);
      // A memory tool sees every step logged before it was called.
      extra = { ...tools, call: async (name, args) => (await log.flush(), tools.call(name, args)) };
      steps = log;
    }
    attempt.session = new AgentSession(live, attempt.context, ctx.maxTurns, controller.signal, extra);
    attempt.session.metered = ctx.agent.metered === true;
    const step = steps ? stepObserver(steps) : null;
    const watch = ctx.watch?.(job, attempt.session.events) ?? null;
    if (step || watch)
      attempt.session.observer = (event) => {
        step?.(event);
        watch?.(event);
      };
    if (ctx.agent.external) {
      broker = await ToolBroker.open(attempt.session);
      attempt.session.toolEndpoint = broker;
    }
    // A scenario finished at set-up (a SWE instance that failed its own validation) gets no agent.
    const work = live.isDone() ? Promise.resolve() : ctx.agent.run(attempt.session);
    work.catch(() => undefined); // after a time-out its late failure is of no interest
    await Promise.race([work, stoppedBy(controller.signal, () => overLimit ?? timeoutError(ctx.timeoutSeconds))]);
    if (overLimit) throw overLimit;
    // An agent that stopped because its time ran out (during set-up, say) did not finish.
    if (timedOut) throw timeoutError(ctx.timeoutSeconds);
    controller.abort();
    // No call may change the scenario while it is scored.
    await broker?.close();
    await steps?.flush();
    return await settleAttempt(attempt, ctx.scoring);
  } catch (err) {
    controller.abort();
    await broker?.close();
    await steps?.flush();
    return settleAttempt(attempt, ctx.scoring, overLimit ?? toGitGoodError(err));
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
 * Runs `work` with a pack cache for the run's sandboxes (packs are built once per starting point and
 * reused: IR and ICC of a chain, repeats) and with sandboxes removed off the event loop, which parallel
 * attempts share (util/cleanup.ts); the packs are removed afterwards.
 */
export async function withRunPacks<T>(work: (packs: PackCache) => Promise<T>): Promise<T> {
  const packs = runPackCache();
  try {
    return await removingInBackground(() => work(packs.cache));
  } finally {
    packs.remove();
  }
}

/** Git threads a pool of `concurrency` attempts starts its git processes from: one per attempt, at most this many. */
const MOST_GIT_THREADS = 8;

/**
 * This process's pool: `concurrency` jobs at a time, each in its own sandbox with its time limit. With
 * more than one at a time, git processes are started from git threads (`useGitThreads`), so that no
 * attempt waits on the event loop while another's process starts.
 */
export function localExecutor(ctx: JobContext, concurrency: number): Executor {
  return {
    execute: (jobs, settled, admit) =>
      withRunPacks(async (packs) => {
        const threads = concurrency > 1 && jobs.length > 1 ? useGitThreads(Math.min(concurrency, MOST_GIT_THREADS)) : null;
        try {
          // Each result is handed on as its attempt ends, before the pool starts the next job (which `admit` may keep back on it).
          const run = async (job: Job) => {
            if (admit === undefined || admit(job)) settled(await attemptJob(job, ctx, packs), job);
          };
          for await (const ended of mapPool(jobs, concurrency, run)) void ended;
        } finally {
          await threads?.();
        }
      }),
  };
}
