import { z } from "zod";
import { DIFFICULTIES } from "../dataset/sample.js";

/** Version of the results format (results.jsonl, run.json); bumped on any incompatible change. */
export const RESULTS_SCHEMA_VERSION = 1;

export const SCENARIO_LABELS = ["MCR", "IR", "ICC"] as const;
export type ScenarioLabel = (typeof SCENARIO_LABELS)[number];

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
  scenario: z.enum(SCENARIO_LABELS),
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
export function resultKey(sampleId: string, scenario: ScenarioLabel): string {
  return `${sampleId.replace(/[^A-Za-z0-9._-]+/g, "_")}.${scenario}`;
}
