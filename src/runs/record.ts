import { z } from "zod";
import { DIFFICULTIES } from "../dataset/sample.js";
import { safeFileName } from "../util/file-names.js";

/** Version of the results format (results.jsonl, run.json, trajectories); bumped on any incompatible change. */
export const RESULTS_SCHEMA_VERSION = 2;

const TokensSchema = z.object({ prompt: z.number().int(), completion: z.number().int() });
export type Tokens = z.infer<typeof TokensSchema>;

/**
 * One sample × scenario of a run. `status` is whether it ran without a system error (success rate);
 * `solved` is the scorer's verdict (solve rate): null when no judge was asked for an IR/ICC history.
 */
export const ResultRecordSchema = z.object({
  schema_version: z.literal(RESULTS_SCHEMA_VERSION),
  key: z.string(),
  sample_id: z.string(),
  /** The scenario's registry name (MCR, IR, ICC, …). */
  scenario: z.string(),
  repository: z.string(),
  difficulty: z.enum(DIFFICULTIES),
  agent: z.string(),
  status: z.enum(["success", "error"]),
  solved: z.boolean().nullable(),
  verdict: z.enum(["solved", "unsolved", "unjudged", "error"]),
  scores: z.record(z.string(), z.unknown()),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  turns: z.number().int(),
  tool_calls: z.number().int(),
  /** Tokens the agent's model requests spent (answers from the response cache spend none). */
  tokens: TokensSchema,
  /**
   * false: what the agent's model calls spent is unknown (they did not pass through gitgood: an A2A agent, a
   * program that did not use the run's proxy, an MCP client), and `tokens` are 0 by that, not
   * measured. An agent that asks no model (the oracle, the baselines) has its usage known: none. Absent in
   * older records, which are read as known.
   */
  usage_known: z.boolean().optional(),
  /** What those tokens cost, US dollars (null: no prices for the agent's model, or usage unknown). */
  cost_usd: z.number().nullable(),
  /** Model answers given by the response cache, the agent's and the judges' (older records: 0). */
  cache_hits: z.number().int().nonnegative().optional(),
  /** Tokens the judges' requests spent scoring this attempt (older records: not counted). */
  judge_tokens: TokensSchema.optional(),
  /** What the judges' tokens cost, US dollars (null: a judge that spent tokens has no price). */
  judge_cost_usd: z.number().nullable().optional(),
  /** Which run of this sample × scenario it is, 0-based (`--repeats`; older records: 0). */
  repeat: z.number().int().nonnegative().optional(),
  started_at: z.string(),
  duration_ms: z.number(),
  /** Path of the trajectory file, relative to the run directory. */
  trajectory: z.string().nullable(),
  /** The sample's language (for the report's per-language tables); absent in older results. */
  programming_language: z.string().nullable().optional(),
  /** MCR: whether replacing only the conflict regions can reach the recorded merge (the sample's `scenario.resolvable`); null when unknown. */
  resolvable: z.boolean().nullable().optional(),
  /** Why a failed attempt failed, read from its final state and trajectory (src/runs/labels.ts); absent in older records. */
  failure_labels: z.array(z.string()).optional(),
  /** The history-probe audit of every attempt, solved or not (src/runs/probes.ts); absent in older records. */
  history_probes: z.object({ count: z.number().int().nonnegative(), commands: z.array(z.string()) }).optional(),
});
/** One attempt's result, a line of a run's `results.jsonl`. */
export type ResultRecord = z.infer<typeof ResultRecordSchema>;

/**
 * The key of a sample × scenario in a run: unique, short, and safe as a file name. A plain sample id
 * (the published ones, the mined ones) is kept as it is, so existing run directories still resume.
 */
export function resultKey(sampleId: string, scenario: string): string {
  return `${safeFileName(sampleId)}.${scenario}`;
}
