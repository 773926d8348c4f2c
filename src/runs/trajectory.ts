import { z } from "zod";
import { SampleSchema } from "../dataset/sample.js";
import { RESULTS_SCHEMA_VERSION } from "./record.js";

/**
 * A trajectory file (`trajectories/KEY.json`): everything an attempt did, and what re-scoring needs
 * without the sandbox: the sample and the final state.
 */
export const TrajectorySchema = z.object({
  schema_version: z.literal(RESULTS_SCHEMA_VERSION),
  sample_id: z.string(),
  scenario: z.string(),
  agent: z.string(),
  sample: SampleSchema,
  /** Who ended an MCP attempt (`finish_scenario`, `disconnect`, `stopped`), and which client it was. */
  ended_by: z.string().optional(),
  client: z.unknown().optional(),
  /** The initial context's data, as the agent got it. */
  context: z.unknown().optional(),
  /** The final state (checked against the scenario's own schema when re-scoring). */
  final: z.unknown().optional(),
  scores: z.record(z.string(), z.unknown()).optional(),
  /** Model answers the response cache gave the agent (each such model event's usage says `cached`). */
  cache_hits: z.number().int().optional(),
  /** Per judge model, what scoring the attempt asked of it: requests, answers from the cache, tokens. */
  judge_usage: z
    .array(z.object({ model: z.string(), requests: z.number(), cache_hits: z.number(), prompt_tokens: z.number(), completion_tokens: z.number() }))
    .optional(),
  ground_truth_diff: z.string().optional(),
  events: z.array(z.record(z.string(), z.unknown())),
  error: z.object({ code: z.string(), message: z.string(), data: z.record(z.string(), z.unknown()) }).optional(),
});
/** One attempt's trajectory file: what the agent did, event by event, and how it ended. */
export type Trajectory = z.infer<typeof TrajectorySchema>;
