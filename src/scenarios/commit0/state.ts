import { z } from "zod";

/** One step of a loop agent's history: a file's attempt, its commit, the suite's count, and what became of it. */
export const AttemptRecordSchema = z.object({
  file: z.string(),
  attempt: z.number().int().min(1),
  commit: z.string(),
  /** Counted tests passing with this commit (null: the suite was not run, as by the one-shot agent). */
  passed: z.number().int().min(0).nullable(),
  /**
   * `best`: it passed at least as many as the best so far and became the best commit; `rolled_back`: it
   * passed fewer, and the work tree went back to the best; `kept_last`: the last attempt, kept although
   * it passed fewer (so no file stays a skeleton); `kept`: kept without a test run.
   */
  outcome: z.enum(["best", "rolled_back", "kept_last", "kept"]),
});
/** One step of a loop agent's history (see the schema above for each outcome's meaning). */
export type AttemptRecord = z.infer<typeof AttemptRecordSchema>;

/** The settings a sandbox keeps, so that a later process (`gitgood tool`) runs tests the same way. */
const SavedOptionsSchema = z.object({
  envSpecFile: z.string().nullable(),
  cacheDir: z.string().nullable(),
  testTimeoutSeconds: z.number().int().nullable(),
  setupTimeoutSeconds: z.number().int().nullable(),
  relatedTests: z.string().nullable(),
});
export type SavedOptions = z.infer<typeof SavedOptionsSchema>;

/** What a repository-completion sandbox keeps between calls. */
export const Commit0DataSchema = z.object({
  finished: z.boolean(),
  /** The counted tests (those passing at the reference): their ids only, no answer. */
  counted: z.array(z.string()),
  options: SavedOptionsSchema,
  /** The last run of the whole suite: at which commit, and how many counted tests passed. */
  lastSuite: z.object({ commit: z.string(), passed: z.number().int(), total: z.number().int() }).nullable(),
  history: z.array(AttemptRecordSchema),
  best: z.object({ commit: z.string(), passed: z.number().int() }).nullable(),
});
export type Commit0Data = z.infer<typeof Commit0DataSchema>;

/** Where a repository-completion attempt ended: what the `commit0` scorer evaluates. */
export const Commit0FinalStateSchema = z.object({
  done: z.boolean(),
  /** The work tree's diff against the skeleton commit (new files included), as UTF-8 text or base64 bytes. */
  patch: z.string(),
  encoding: z.enum(["utf8", "base64"]),
  /** Functions under src_dir whose body is still a stub. */
  stubs_left: z.number().int().min(0),
  /** The loop agents' steps, file by file: the best-commit history. */
  history: z.array(AttemptRecordSchema),
  best: z.object({ commit: z.string(), passed: z.number().int() }).nullable(),
});
/** The final state of a repository-completion attempt, as `Commit0FinalStateSchema` accepts it. */
export type Commit0FinalState = z.infer<typeof Commit0FinalStateSchema>;
