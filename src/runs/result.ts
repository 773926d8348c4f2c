import type { Sample } from "../dataset/sample.js";
import type { GitGoodError } from "../errors.js";
import type { ModelUsage } from "../model/meter.js";
import { cost, type PriceOf, type Prices } from "../model/prices.js";
import type { Scored } from "../scoring/scorer.js";
import { RESULTS_SCHEMA_VERSION, resultKey, type ResultRecord, type Tokens } from "./record.js";

/** The suffix that tells a with-memory run of a scenario from the plain one, in keys and agent names. */
export const MEMORY_VARIANT = "+memory";

/**
 * The key of an attempt in its run: the sample, the scenario, the memory variant and, from the second
 * repeat on, `#r` (repeat 0 keeps the key runs had before `--repeats`, so they resume).
 */
export function attemptKey(sampleId: string, scenario: string, memory = false, repeat = 0): string {
  return `${resultKey(sampleId, scenario)}${memory ? MEMORY_VARIANT : ""}${repeat > 0 ? `#${repeat}` : ""}`;
}

/** The response-cache scope of a repeat: its own from the second repeat on, so repeats are independent samples. */
export function repeatCacheScope(repeat = 0): string | null {
  return repeat > 0 ? `repeat ${repeat}` : null;
}

/** Answers from the response cache among a trajectory's model messages. */
export function cacheHitsIn(events: readonly Record<string, unknown>[]): number {
  return events.filter((e) => e.type === "model" && (e.usage as { cached?: unknown } | undefined)?.cached === true).length;
}

/** What the judges spent on one attempt: tokens, dollars, and answers the cache gave. */
export interface JudgeAccount {
  tokens: Tokens;
  /** null when a judge that spent tokens has no price. */
  cost_usd: number | null;
  cache_hits: number;
}

/** Adds up the judges' usage of one attempt, each judge model at its own prices. */
export function judgeAccount(usages: readonly ModelUsage[], priceOf: PriceOf = () => undefined): JudgeAccount {
  const tokens = { prompt: 0, completion: 0 };
  let dollars: number | null = 0;
  let hits = 0;
  for (const u of usages) {
    const spent = { prompt: u.prompt_tokens, completion: u.completion_tokens };
    tokens.prompt += spent.prompt;
    tokens.completion += spent.completion;
    hits += u.cache_hits;
    if (spent.prompt + spent.completion === 0) continue;
    const c = cost(spent, priceOf(u.model));
    dollars = dollars === null || c === null ? null : dollars + c;
  }
  return { tokens, cost_usd: dollars === null ? null : Math.round(dollars * 1e6) / 1e6, cache_hits: hits };
}

/** What an attempt's result record is made from: the sample, scenario and agent, its time, turns, tool calls, usage and the rest of its account. */
export interface RecordInput {
  sample: Sample;
  /** The scenario's registry name. */
  scenario: string;
  agent: string;
  startedAt: Date;
  durationMs: number;
  turns: number;
  toolCalls: number;
  tokens: { prompt: number; completion: number };
  /** Whether `tokens` count what the agent's model calls spent (false: unknown; default true). */
  usageKnown?: boolean;
  prices?: Prices;
  /** Path of the trajectory file, relative to the run directory. */
  trajectory: string | null;
  /** The agent had the memory tools (a `--memory` run's second pass). */
  memory?: boolean;
  /** Which run of the sample × scenario this is, 0-based (`--repeats`). */
  repeat?: number;
  /** Answers the agent's model got from the response cache. */
  cacheHits?: number;
  /** The judges' usage while this attempt was scored. */
  judges?: JudgeAccount;
  outcome: { scored: Scored } | { error: GitGoodError };
}

/** The verdict a record shows for a scoring outcome. */
export function verdictOf(solved: boolean | null): ResultRecord["verdict"] {
  return solved === null ? "unjudged" : solved ? "solved" : "unsolved";
}

/** A merge sample's `scenario.resolvable` when the sample says, else null (chains, older samples). */
function resolvableOf(sample: Sample): boolean | null {
  const resolvable = (sample.scenario as { resolvable?: unknown }).resolvable;
  return typeof resolvable === "boolean" ? resolvable : null;
}

/** The results record of one sample × scenario (shared by `gitgood run` and the MCP server). */
export function resultRecord(r: RecordInput): ResultRecord {
  const variant = r.memory ? MEMORY_VARIANT : "";
  const common = {
    schema_version: RESULTS_SCHEMA_VERSION as typeof RESULTS_SCHEMA_VERSION,
    key: attemptKey(r.sample.id, r.scenario, r.memory, r.repeat),
    sample_id: r.sample.id,
    scenario: r.scenario,
    repository: r.sample.name,
    difficulty: r.sample.difficulty,
    agent: `${r.agent}${variant}`,
    turns: r.turns,
    tool_calls: r.toolCalls,
    tokens: r.tokens,
    usage_known: r.usageKnown ?? true,
    cost_usd: r.usageKnown === false ? null : cost(r.tokens, r.prices),
    cache_hits: (r.cacheHits ?? 0) + (r.judges?.cache_hits ?? 0),
    judge_tokens: r.judges?.tokens ?? { prompt: 0, completion: 0 },
    judge_cost_usd: r.judges ? r.judges.cost_usd : 0,
    repeat: r.repeat ?? 0,
    started_at: r.startedAt.toISOString(),
    duration_ms: r.durationMs,
    trajectory: r.trajectory,
    programming_language: r.sample.programming_language,
    resolvable: resolvableOf(r.sample),
  };
  if ("error" in r.outcome) {
    const e = r.outcome.error;
    return { ...common, status: "error", solved: false, verdict: "error", scores: {}, error: { code: e.code, message: e.message } };
  }
  const { scores, solved } = r.outcome.scored;
  return { ...common, status: "success", solved, verdict: verdictOf(solved), scores, error: null };
}
