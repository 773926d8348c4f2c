import { z } from "zod";
import type { Person } from "../../git/commits.js";
import { isPathNotation } from "../../git/paths.js";
import type { ConflictState } from "./conflicts.js";

/** zod schemas of the state scenarios save and the final states they leave (checked when read back), and the chain they describe. */

/** A commit of a chain: its id and subject. */
export interface ChainCommit {
  oid: string;
  subject: string;
}

/** A file-commit chain as a scenario needs it. */
export interface Chain {
  /** Parent of the oldest commit: where the new history starts. */
  base: string;
  /** Oldest first; a commit's position is its `commit_index`. */
  commits: ChainCommit[];
  tip: ChainCommit;
  /** The tip's tree: the state the chain ends in (an ICC sandbox has this tree but not the tip commit). */
  tipTree: string;
  /** Author and committer of the tip, used for every commit the scenario makes, so results are reproducible. */
  author: Person;
  committer: Person;
  committerEnv: Record<string, string>;
}

const PersonSchema: z.ZodType<Person> = z.object({ name: z.string(), email: z.string(), date: z.string() });

/** A path in the notation of src/git/paths.ts: its exact bytes, escaped where they are not printable UTF-8. */
export const PathNotationSchema = z.string().refine(isPathNotation, "not a path notation (a quoted path that does not read back)");

const LinkTargetSchema = z.string().nullable();

/** Validates the saved conflict state of a merge or rebase step: each conflicted file and its regions, resolved or not. */
export const ConflictStateSchema: z.ZodType<ConflictState> = z.object({
  files: z.array(
    z.object({
      path: PathNotationSchema,
      cursor: z.number().int().min(0),
      wholeFile: z.boolean(),
      /** Git's mode of the conflicted entry (state saved before modes were kept holds regular files). */
      mode: z.string().regex(/^[0-7]{6}$/).default("100644"),
      sides: z.object({ base: LinkTargetSchema, ours: LinkTargetSchema, theirs: LinkTargetSchema }).nullable().default(null),
    }),
  ),
  conflicts: z.array(
    z.object({
      file: z.number().int().min(0),
      resolved: z.object({ start: z.number().int().min(0), length: z.number().int().min(0) }).nullable(),
    }),
  ),
});

const ChainCommitSchema = z.object({ oid: z.string(), subject: z.string() });

export const ChainSchema: z.ZodType<Chain> = z.object({
  base: z.string(),
  commits: z.array(ChainCommitSchema),
  tip: ChainCommitSchema,
  tipTree: z.string(),
  author: PersonSchema,
  committer: PersonSchema,
  committerEnv: z.record(z.string(), z.string()),
});

/** Validates one file of a final state: its path in path notation and its content. */
export const FileContentSchema = z.object({
  path: PathNotationSchema,
  /** The file's bytes as UTF-8 text, or base64 when they are not valid UTF-8; null when the file is gone. */
  content: z.string().nullable(),
  encoding: z.enum(["utf8", "base64"]),
});
/** One file of a final state, as `FileContentSchema` accepts it. */
export type FileContent = z.infer<typeof FileContentSchema>;

/** Validates one commit of a final state's history: its id, message, author, diff and parents. */
export const CommitRecordSchema = z.object({
  oid: z.string(),
  message: z.string(),
  author: PersonSchema,
  /** The commit's patch; a merge commit's is blank (its parents, not a patch, say what it joined). */
  diff: z.string(),
  /** The commit's parents (absent in older trajectories): more than one makes it a merge commit. */
  parents: z.array(z.string()).optional(),
});
/** One commit of an agent's new history: its id, message, author and `git show` diff. */
export type CommitRecord = z.infer<typeof CommitRecordSchema>;

/** The final state of a scenario that rewrites history (IR, ICC). */
export const HistoryFinalStateSchema = z.object({
  done: z.boolean(),
  /** The parent of the chain's oldest commit. */
  base: z.string(),
  head: z.string(),
  tree: z.string(),
  /** New commits from base (exclusive) to HEAD, oldest first. */
  commits: z.array(CommitRecordSchema),
  /** What was still open when the state was read (a rebase stopped on a conflict, uncommitted hunks). */
  pending: z.string().nullable(),
  /**
   * HEAD still descends from `base`: nothing before the requested range was rewritten (absent in older
   * trajectories). When false, `commits` runs back to where the two histories meet.
   */
  base_kept: z.boolean().optional(),
  /**
   * IR: whether the repository still holds a rebase in progress when the state was read, from its git
   * directory itself (absent for ICC and in older trajectories). `done` and `pending` follow it: an agent
   * that ended or started a rebase with git of its own leaves the repository, not the tools, in charge.
   */
  rebase_in_progress: z.boolean().optional(),
});
/** The final state of an IR or ICC attempt, as `HistoryFinalStateSchema` accepts it. */
export type HistoryFinalState = z.infer<typeof HistoryFinalStateSchema>;
