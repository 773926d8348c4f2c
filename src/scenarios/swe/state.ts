import { z } from "zod";

/** What a SWE sandbox keeps between calls. */
export const SweDataSchema = z.object({
  /** The agent called `finish`. */
  finished: z.boolean(),
  /** The text answer the agent gave with `finish` (a patch is read from it when the work tree is unchanged). */
  answer: z.string().nullable(),
  /** Why the instance failed its own validation (then no agent works it); null when valid or not checked. */
  invalid: z.string().nullable(),
  /** The agent was given the instance's hints. */
  hints: z.boolean(),
  /** Seconds the set-up took (the instance's validation included), and when the agent could start (ms since the epoch). */
  setup_s: z.number().optional(),
  ready_at: z.number().optional(),
});
export type SweData = z.infer<typeof SweDataSchema>;

/** Where a SWE attempt ended: what the `swe` scorer evaluates. */
export const SweFinalStateSchema = z.object({
  done: z.boolean(),
  /** The work tree's diff against base_commit (new and binary files included), as UTF-8 text or base64 bytes. */
  patch: z.string(),
  encoding: z.enum(["utf8", "base64"]),
  answer: z.string().nullable(),
  invalid: z.string().nullable(),
  /** Seconds of the set-up (validation included) and of the agent's work, when known. */
  timings: z.object({ setup_s: z.number(), agent_s: z.number() }).optional(),
});
/** The final state of a SWE attempt, as `SweFinalStateSchema` accepts it. */
export type SweFinalState = z.infer<typeof SweFinalStateSchema>;
