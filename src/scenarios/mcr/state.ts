import { z } from "zod";
import { ConflictStateSchema, FileContentSchema } from "../shared/schemas.js";

/** What an MCR sandbox keeps between calls. */
export const McrDataSchema = z.object({
  conflicts: ConflictStateSchema,
  /** Sample files that git did not report as conflicted (kept to tell the agent). */
  notConflicted: z.array(z.string()),
  /** The merge commit the scenario made after the last resolution. */
  committed: z.string().nullable(),
});
export type McrData = z.infer<typeof McrDataSchema>;

/** Where an MCR attempt ended: what exact-match scoring compares with the recorded merge. */
export const McrFinalStateSchema = z.object({
  done: z.boolean(),
  conflicts_left: z.number().int().min(0),
  /** The merge commit the scenario made, once all conflicts are resolved. */
  head: z.string().nullable(),
  /** Its tree (compare with the original merge commit's tree for exact match). */
  tree: z.string().nullable(),
  files: z.array(FileContentSchema),
});
export type McrFinalState = z.infer<typeof McrFinalStateSchema>;
