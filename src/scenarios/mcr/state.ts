import { z } from "zod";
import { ConflictStateSchema, FileContentSchema, PathNotationSchema } from "../shared/schemas.js";

/**
 * The MCR tool sets (`--mcr-tools`): `paper`, the published tools, which replace only conflict
 * regions; `extended`, those plus a tool that writes any file of the merge.
 */
export const MCR_TOOL_SETS = ["paper", "extended"] as const;
export type McrToolSet = (typeof MCR_TOOL_SETS)[number];

/** What an MCR sandbox keeps between calls. */
export const McrDataSchema = z.object({
  conflicts: ConflictStateSchema,
  /** Sample files that git did not report as conflicted (kept to tell the agent). */
  notConflicted: z.array(z.string()),
  /** The merge commit the scenario made after the last resolution. */
  committed: z.string().nullable(),
  /** Replacing only the conflict regions can reproduce the recorded merge's tree (the sample's flag, or computed at set-up). */
  resolvable: z.boolean(),
  /** Why not, naming the first offending path (null when resolvable, or when the sample's flag gave no reason). */
  unresolvableReason: z.string().nullable(),
  tools: z.enum(MCR_TOOL_SETS),
  /** Files written with the extended tool that have no conflict, in the order first written (staged with the merge). */
  edited: z.array(PathNotationSchema),
  /** The tree of the set-up's merge with its conflicts as git wrote them (git's AUTO_MERGE; absent when git wrote none, and in older sandboxes). */
  conflictedTree: z.string().nullable().optional(),
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
  /** The conflicted files, then the files the extended tool wrote. */
  files: z.array(FileContentSchema),
  /** Whether the recorded merge can be reached with the published tools, and why not (absent in older trajectories). */
  resolvable: z.boolean().optional(),
  unresolvable_reason: z.string().nullable().optional(),
  /** The tool set the agent had (absent in older trajectories: paper). */
  tools: z.enum(MCR_TOOL_SETS).optional(),
  /**
   * Once no conflict is left, each conflicted file (git left markers in) as the set-up's merge left it,
   * conflict markers included: what the scorer tells the side of each region from without merging again
   * (absent in older trajectories, and when git recorded no such tree: the scorer then re-merges).
   */
  conflicted: z.array(FileContentSchema).optional(),
});
/** The final state of an MCR attempt, as `McrFinalStateSchema` accepts it. */
export type McrFinalState = z.infer<typeof McrFinalStateSchema>;
