import { z } from "zod";
import { DIFFICULTIES } from "../dataset/sample.js";

/** Version of the results format (results.jsonl, run.json, trajectories); bumped on any incompatible change. */
export const RESULTS_SCHEMA_VERSION = 2;

export const TokensSchema = z.object({ prompt: z.number().int(), completion: z.number().int() });
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
  tokens: TokensSchema,
  cost_usd: z.number().nullable(),
  started_at: z.string(),
  duration_ms: z.number(),
  /** Path of the trajectory file, relative to the run directory. */
  trajectory: z.string().nullable(),
});
export type ResultRecord = z.infer<typeof ResultRecordSchema>;

/** The key of a sample × scenario in a run: unique, and safe as a file name. */
export function resultKey(sampleId: string, scenario: string): string {
  return `${sampleId.replace(/[^A-Za-z0-9._-]+/g, "_")}.${scenario}`;
}
