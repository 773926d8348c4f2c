import { MeteredModelClient } from "../model/meter.js";
import type { ModelClient } from "../model/types.js";
import type { Sample } from "../dataset/sample.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import type { Repo } from "../git/repo.js";
import type { AnyScenarioDefinition } from "../scenarios/definition.js";
import type { InitialContext, LiveScenario } from "../scenarios/types.js";
import { runScorers, type Scored } from "../scoring/scorer.js";
import { failureLabels } from "./labels.js";
import { hiddenCommits, historyProbes } from "./probes.js";
import { RESULTS_SCHEMA_VERSION, type ResultRecord } from "./record.js";
import type { PriceOf, Prices } from "../model/prices.js";
import { MEMORY_VARIANT, attemptKey, cacheHitsIn, judgeAccount, resultRecord } from "./result.js";
import type { AgentSession } from "./session.js";
import { trajectoryPath, type RunStore } from "./store.js";
import { RunWriter } from "./writer.js";
import type { Settled } from "./types.js";

export type { Settled } from "./types.js";
import type { Trajectory } from "./trajectory.js";

/** Seconds the scorers of one attempt may take when the recorder gives no limit (a run's default `--timeout`). */
export const DEFAULT_SCORE_TIMEOUT_SECONDS = 900;

/**
 * Runs `work` with a signal that aborts after `seconds`, its reason a SCORE_TIMEOUT error: the time
 * limit of scoring one attempt, so that a judge endpoint that stalls cannot hold the run.
 */
export async function withScoreLimit<T>(seconds: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new GitGoodError("SCORE_TIMEOUT", `scoring did not finish within ${seconds} s (the scoring time limit)`, { seconds })),
    seconds * 1000,
  );
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

/** With what attempts are scored and priced: everything settling an attempt needs but where it is written. */
export interface Scoring {
  judges: readonly ModelClient[];
  /** The agent name in the records. */
  agent: string;
  /** The prices of the agent's model. */
  prices?: Prices;
  /** The prices of a judge model, by name (none: its cost is unknown). */
  priceOf?: PriceOf;
  /** Scenario-specific settings the scorers get (SWE: its evaluation options). */
  settings?: Readonly<Record<string, unknown>>;
  /**
   * Seconds the scorers of one attempt may take, counted from the end of the agent's work (default
   * DEFAULT_SCORE_TIMEOUT_SECONDS; a run gives its `--timeout`). A scorer still running then (a stalled
   * judge) records a SCORE_TIMEOUT error and the verdict stays unjudged.
   */
  scoreTimeoutSeconds?: number;
}

/** Where attempts are recorded, and with what they are scored (the MCP server settles and writes in one step). */
export interface Recorder extends Scoring {
  store: RunStore;
}


/** One attempt at one scenario of one sample, as far as it got. */
export interface Attempt {
  sample: Sample;
  scenario: AnyScenarioDefinition;
  /** The agent had the memory tools. */
  memory: boolean;
  /** Which run of the sample × scenario this is, 0-based (`--repeats`; default 0). */
  repeat?: number;
  startedAt: Date;
  /** The scenario as set up (null when set-up failed). */
  live: LiveScenario | null;
  source: Repo | null;
  session: AgentSession | null;
  context: InitialContext | null;
  /** More facts for the trajectory (an MCP client, how the attempt ended). */
  notes?: { ended_by?: string; client?: unknown };
}

export function keyOf(a: Pick<Attempt, "sample" | "scenario" | "memory" | "repeat">): string {
  return attemptKey(a.sample.id, a.scenario.name, a.memory, a.repeat);
}

function trajectoryOf(a: Attempt, rec: Scoring): Trajectory {
  return {
    schema_version: RESULTS_SCHEMA_VERSION,
    sample_id: a.sample.id,
    scenario: a.scenario.name,
    agent: `${rec.agent}${a.memory ? MEMORY_VARIANT : ""}`,
    sample: a.sample,
    ...(a.notes?.ended_by !== undefined ? { ended_by: a.notes.ended_by } : {}),
    ...(a.notes?.client !== undefined ? { client: a.notes.client } : {}),
    ...(a.context ? { context: a.context.data } : {}),
    events: [],
  };
}

/** Scores the final state of a finished attempt; a failure here is the attempt's error. */
async function score(
  a: Attempt,
  live: LiveScenario,
  source: Repo,
  judges: readonly ModelClient[],
  settings: Readonly<Record<string, unknown>> | undefined,
  limit: number,
  t: Trajectory,
): Promise<Scored> {
  const parsed = a.scenario.finalSchema.safeParse(await live.finalState());
  if (!parsed.success) throw new GitGoodError("INTERNAL", `the ${a.scenario.name} final state does not match its schema`);
  const final = parsed.data;
  t.final = final;
  const scored = await withScoreLimit(limit, (signal) => runScorers(a.scenario.scorers, a.sample, final, { source, judges, settings, signal }));
  t.scores = scored.scores;
  try {
    t.ground_truth_diff = await a.scenario.groundTruth(live, final, source);
  } catch (err) {
    t.ground_truth_diff = `(the ground-truth view could not be made: ${toGitGoodError(err).message})`;
  }
  return scored;
}

/**
 * Removes the sandbox and makes the record, its trajectory path the one the run's writer gives the key.
 * `judges` are the metered judges the attempt was scored with (their tokens, cost and cache hits are recorded).
 */
function settled(
  a: Attempt,
  rec: Scoring,
  t: Trajectory,
  outcome: { scored: Scored } | { error: GitGoodError },
  judges: readonly MeteredModelClient[] = [],
): Settled {
  a.live?.close();
  if ("error" in outcome) {
    a.session?.note("note", outcome.error.message);
    t.error = outcome.error.toJSON();
  }
  t.events = (a.session?.events ?? []);
  const cacheHits = cacheHitsIn(t.events);
  t.cache_hits = cacheHits;
  if (judges.length > 0) t.judge_usage = judges.map((j) => ({ ...j.usage }));
  const key = keyOf(a);
  const record = resultRecord({
    sample: a.sample,
    scenario: a.scenario.name,
    agent: rec.agent,
    startedAt: a.startedAt,
    durationMs: Date.now() - a.startedAt.getTime(),
    turns: a.session?.turns ?? 0,
    toolCalls: a.session?.toolCalls ?? 0,
    tokens: { prompt: a.session?.usage.prompt_tokens ?? 0, completion: a.session?.usage.completion_tokens ?? 0 },
    // An attempt that never got a session called no model: its 0 tokens are known.
    usageKnown: a.session?.usageKnown ?? true,
    prices: rec.prices,
    trajectory: trajectoryPath(key),
    memory: a.memory,
    repeat: a.repeat,
    cacheHits,
    judges: judgeAccount(
      judges.map((j) => j.usage),
      rec.priceOf,
    ),
    outcome,
  });
  const labels = failureLabels({
    sample: a.sample,
    scenario: a.scenario.name,
    definition: a.scenario,
    solved: record.solved,
    errorCode: record.error?.code ?? null,
    final: t.final,
    scores: t.scores ?? {},
    events: t.events,
    turns: record.turns,
    maxTurns: a.session?.maxTurns ?? null,
  });
  return { record: { ...record, failure_labels: labels, history_probes: historyProbes(t.events, hiddenCommits(a.sample, a.scenario.name)) }, trajectory: t };
}

/**
 * The one way an attempt ends, for every executor: the final state is read and scored (unless the
 * attempt already failed) and the sandbox removed. Writes nothing: the record and trajectory it returns
 * go to the run's writer. Never throws for the attempt's own failures: they become the record's error.
 */
export async function settleAttempt(a: Attempt, rec: Scoring, failure?: GitGoodError): Promise<Settled> {
  const t = trajectoryOf(a, rec);
  if (failure || !a.live || !a.source) {
    return settled(a, rec, t, { error: failure ?? new GitGoodError("INTERNAL", "the attempt ended before it was set up") });
  }
  const judges = rec.judges.map((j) => new MeteredModelClient(j));
  try {
    return settled(a, rec, t, { scored: await score(a, a.live, a.source, judges, rec.settings, rec.scoreTimeoutSeconds ?? DEFAULT_SCORE_TIMEOUT_SECONDS, t) }, judges);
  } catch (err) {
    return settled(a, rec, t, { error: toGitGoodError(err) }, judges);
  }
}

/** Settles an attempt and writes it to the recorder's store at once (the MCP server's attempts). */
export async function settle(a: Attempt, rec: Recorder, failure?: GitGoodError): Promise<ResultRecord> {
  return new RunWriter(rec.store).write(await settleAttempt(a, rec, failure));
}

/** Ends an attempt as failed at once, synchronously (from a signal handler nothing asynchronous gets to run). */
export function settleFailedNow(a: Attempt, rec: Recorder, failure: GitGoodError): ResultRecord {
  return new RunWriter(rec.store).write(settled(a, rec, trajectoryOf(a, rec), { error: failure }));
}
