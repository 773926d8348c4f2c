import { z } from "zod";
import type { ResultRecord } from "./record.js";
import { MEMORY_VARIANT } from "./result.js";

/**
 * Record fields the report reads that not every results file has: older runs lack them, and runs
 * without repeats, a response cache or a judge leave them out. Each is read on its own, so one
 * malformed field is ignored rather than losing the record.
 */
const ExtrasSchema = z.object({
  /** 0-based repeat of the sample × scenario (`--repeats K`). */
  repeat: z.number().int().min(0).optional().catch(undefined),
  /** Model requests answered from the response cache. */
  cache_hits: z.number().int().min(0).optional().catch(undefined),
  /** Tokens the judges used: a total, or prompt and completion. */
  judge_tokens: z
    .union([z.number().int().min(0), z.object({ prompt: z.number().int().min(0), completion: z.number().int().min(0) })])
    .optional()
    .catch(undefined),
  /** What the judges cost, in US dollars (null without prices). */
  judge_cost_usd: z.number().min(0).nullable().optional().catch(undefined),
});

export interface RecordExtras {
  repeat: number;
  cache_hits: number | null;
  judge_tokens: number | null;
  judge_cost_usd: number | null;
}

/** The optional fields of a record, with defaults: repeat 0, null for what the record does not say. */
export function extrasOf(record: ResultRecord): RecordExtras {
  const parsed = ExtrasSchema.safeParse(record);
  const e = parsed.success ? parsed.data : {};
  const judge = e.judge_tokens;
  return {
    repeat: e.repeat ?? 0,
    cache_hits: e.cache_hits ?? null,
    judge_tokens: judge === undefined ? null : typeof judge === "number" ? judge : judge.prompt + judge.completion,
    judge_cost_usd: e.judge_cost_usd ?? null,
  };
}

/** The language a record's sample is in, as the sample names it; "unknown" when it does not. */
export function languageOf(record: ResultRecord): string {
  return record.programming_language ?? "unknown";
}

/** The agent name's memory variant, as keys write it (`+memory`), or "". */
export function variantOf(agent: string): string {
  return agent.endsWith(MEMORY_VARIANT) ? MEMORY_VARIANT : "";
}

/**
 * MCR: whether the agent's whole tree equals the recorded merge's (the exact-match scorer's
 * `tree_matches`); null for other scenarios and records without it.
 */
export function treeMatchesOf(record: ResultRecord): boolean | null {
  const value = (record.scores.exact_match as { tree_matches?: unknown } | undefined)?.tree_matches;
  return typeof value === "boolean" ? value : null;
}

/** The tokens a record's agent spent; null when its usage is unknown (`usage_known: false`). */
export function tokensOf(record: ResultRecord): { prompt: number; completion: number } | null {
  return record.usage_known === false ? null : record.tokens;
}
