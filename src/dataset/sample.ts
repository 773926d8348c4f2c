import { z } from "zod";
import { GitGoodError } from "../errors.js";

/** Version of the sample layout gitgood writes; bumped on any incompatible change. */
export const SAMPLE_SCHEMA_VERSION = 1;

/** The types of sample the Git miner makes: a merge or a file-commit chain. */
export type SampleType = "merge" | "file_commit_chain";
export const SAMPLE_TYPES: readonly SampleType[] = ["merge", "file_commit_chain"];

/** The difficulty labels a sample can carry, easiest first. */
export const DIFFICULTIES = ["easy", "medium", "hard"] as const;
/** A sample's difficulty label: `easy`, `medium` or `hard`. */
export type Difficulty = (typeof DIFFICULTIES)[number];

/** The size classes of a repository by lines of code, smallest first. */
export const PROJECT_SIZES = ["tiny", "small", "medium", "large", "huge"] as const;
/** A repository's size class by lines of code, as GitGoodBench buckets it (see `projectSizeOf`). */
export type ProjectSize = (typeof PROJECT_SIZES)[number];

const oid = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "a full commit hash");

/**
 * Validates a merge scenario: a merge commit and its two parents, and the files and conflict regions a replay of the
 * merge leaves in conflict (at least one of each).
 */
export const MergeScenarioSchema = z.object({
  merge_commit_hash: oid,
  parents: z.tuple([oid, oid]),
  number_of_files_with_merge_conflict: z.number().int().min(1),
  total_number_of_merge_conflicts: z.number().int().min(1),
  files_in_merge_conflict: z.array(z.string()).min(1),
  /**
   * Replacing only the conflict regions can reproduce the recorded merge's tree (gitgood's field, last;
   * absent from published samples).
   */
  resolvable: z.boolean().optional(),
  /**
   * Why not, when `resolvable` is false: the first path (in git's order) no replacement of conflict regions
   * reaches, and what stands in the way (gitgood's field, after `resolvable`).
   */
  unresolvable_reason: z.string().optional(),
  /** The merge commit's committer date, ISO 8601 in UTC (gitgood's field, last; `mine --since/--until` read it). */
  committed_at: z.string().optional(),
});
/** A merge scenario as `MergeScenarioSchema` accepts it. */
export type MergeScenario = z.infer<typeof MergeScenarioSchema>;

/**
 * Validates a file-commit chain scenario: `times_seen_consecutively` commits in a row on `branch` that change `file`,
 * from `oldest_commit` to `newest_commit`. `purity` (0 to 1, two decimals) is the share of the chain's changed lines
 * that fall in `file`; `non_pl_files` lists the files the chain changes that are in none of the mined languages,
 * when there are any.
 */
export const ChainScenarioSchema = z.object({
  file: z.string(),
  branch: z.string(),
  times_seen_consecutively: z.number().int().min(1),
  purity: z.number().min(0).max(1),
  newest_commit: oid,
  oldest_commit: oid,
  contains_non_pl_files: z.boolean(),
  non_pl_files: z.array(z.string()).optional(),
  /** The newest commit's committer date, ISO 8601 in UTC (gitgood's field, last; `mine --since/--until` read it). */
  committed_at: z.string().optional(),
});
/** A file-commit chain scenario as `ChainScenarioSchema` accepts it. */
export type ChainScenario = z.infer<typeof ChainScenarioSchema>;

/**
 * A SWE-style task in the SWE-bench instance layout: an issue (`problem_statement`) and a repository at
 * `base_commit`; the gold `patch` fixes it, `test_patch` adds the tests that decide (FAIL_TO_PASS must
 * pass after a fix, PASS_TO_PASS must keep passing). `difficulty` is SWE-bench Verified's annotation
 * ("<15 min fix", …) when the instance has one.
 */
export const SweScenarioSchema = z.object({
  instance_id: z.string().min(1),
  repo: z.string().min(1),
  base_commit: oid,
  patch: z.string(),
  test_patch: z.string(),
  problem_statement: z.string(),
  hints_text: z.string(),
  created_at: z.string().nullable(),
  version: z.string().nullable(),
  environment_setup_commit: z.string().nullable(),
  FAIL_TO_PASS: z.array(z.string()),
  PASS_TO_PASS: z.array(z.string()),
  difficulty: z.string().nullable().optional(),
});
/** A SWE task as `SweScenarioSchema` accepts it. */
export type SweScenario = z.infer<typeof SweScenarioSchema>;

/**
 * A repository-completion task in commit0's instance layout: the library at `reference_commit`, and
 * `base_commit`, a skeleton of it whose function bodies under `src_dir` are stubbed; the agent rebuilds
 * them and the library's tests (`test.test_dir`, run by `test.test_cmd`) judge. `setup` is commit0's
 * environment description, kept as given. `tests` are the counted tests (those passing at the
 * reference commit); empty when the dataset does not list them, and then found by running the suite at
 * the reference commit.
 */
export const RepoCompletionScenarioSchema = z.object({
  instance_id: z.string().min(1),
  repo: z.string().min(1),
  base_commit: oid,
  reference_commit: oid,
  src_dir: z.string(),
  test: z.object({ test_cmd: z.string(), test_dir: z.string() }),
  setup: z.record(z.string(), z.unknown()),
  tests: z.array(z.string()),
});
/** A repository-completion task as `RepoCompletionScenarioSchema` accepts it. */
export type RepoCompletionScenario = z.infer<typeof RepoCompletionScenarioSchema>;

const common = {
  id: z.string().min(1),
  name: z.string().min(1),
  default_branch: z.string().nullable(),
  license: z.string().nullable(),
  stargazers: z.number().int().nullable(),
  created_at: z.string().nullable(),
  topics: z.string().nullable(),
  programming_language: z.string().nullable(),
  project_size: z.enum(PROJECT_SIZES).nullable(),
  difficulty: z.enum(DIFFICULTIES),
};

/** Validates a whole merge sample: the repository fields every sample has, `sample_type: "merge"` and a merge scenario. */
export const MergeSampleSchema = z.object({
  ...common,
  sample_type: z.literal("merge"),
  scenario: MergeScenarioSchema,
});
/** Validates a whole file-commit chain sample (`sample_type: "file_commit_chain"`). */
export const ChainSampleSchema = z.object({
  ...common,
  sample_type: z.literal("file_commit_chain"),
  scenario: ChainScenarioSchema,
});
/** Validates a whole SWE sample (`sample_type: "swe"`). */
export const SweSampleSchema = z.object({
  ...common,
  sample_type: z.literal("swe"),
  scenario: SweScenarioSchema,
});
/** Validates a whole repository-completion sample (`sample_type: "repo_completion"`). */
export const RepoCompletionSampleSchema = z.object({
  ...common,
  sample_type: z.literal("repo_completion"),
  scenario: RepoCompletionScenarioSchema,
});
/** The sample types gitgood knows: one line per family's type. */
const BUILT_IN_SAMPLES = [MergeSampleSchema, ChainSampleSchema, SweSampleSchema, RepoCompletionSampleSchema] as const;
const BuiltInSampleSchema = z.discriminatedUnion("sample_type", BUILT_IN_SAMPLES);

/**
 * A sample type a family brings from outside the package (a plug-in, a test's toy family): its
 * `sample_type` literal and its schema, which must have the common fields and a `scenario`.
 */
export interface SampleTypeDefinition {
  readonly type: string;
  readonly schema: z.ZodObject<{ sample_type: z.ZodLiteral<string> } & z.ZodRawShape>;
}

const REGISTERED: SampleTypeDefinition[] = [];

/** Adds a sample type; its `sample_type` must be new. Samples of it then read, validate and save as any other. */
export function registerSampleType(definition: SampleTypeDefinition): void {
  if (sampleTypeNames().includes(definition.type)) throw new GitGoodError("INTERNAL", `a sample type named ${definition.type} is registered already`);
  REGISTERED.push(definition);
}

/** Removes a sample type added with `registerSampleType` (tests clean up after themselves). */
export function unregisterSampleType(type: string): void {
  const i = REGISTERED.findIndex((d) => d.type === type);
  if (i >= 0) REGISTERED.splice(i, 1);
}

/** The `sample_type` of every sample type: the built-in union's, then those registered, in order. */
export function sampleTypeNames(): string[] {
  return [...BUILT_IN_SAMPLES.map((s) => s.shape.sample_type.value), ...REGISTERED.map((d) => d.type)];
}

/** Fields every sample has, whatever its type (for registered types' schemas). */
export const COMMON_SAMPLE_FIELDS = common;

/** Any sample: the built-in types, and those registered at run time. */
export const SampleSchema: z.ZodType<Sample> = z.lazy(() =>
  REGISTERED.length === 0 ? BuiltInSampleSchema : (z.discriminatedUnion("sample_type", [...BUILT_IN_SAMPLES, ...REGISTERED.map((d) => d.schema)]) as unknown as typeof BuiltInSampleSchema),
);

/** A merge sample as a dataset file holds it. */
export type MergeSample = z.infer<typeof MergeSampleSchema>;
/** A file-commit chain sample as a dataset file holds it. */
export type ChainSample = z.infer<typeof ChainSampleSchema>;
/** A SWE sample as a dataset file holds it. */
export type SweSample = z.infer<typeof SweSampleSchema>;
/** A repository-completion sample as a dataset file holds it. */
export type RepoCompletionSample = z.infer<typeof RepoCompletionSampleSchema>;
/** One sample of any built-in type (a merge, a file-commit chain, a SWE task, a repository completion), as a dataset file holds it. */
export type Sample = MergeSample | ChainSample | SweSample | RepoCompletionSample;

/** True when `sample` is a merge sample; narrows its type. */
export function isMergeSample(sample: Sample): sample is MergeSample {
  return sample.sample_type === "merge";
}

/** True when `sample` is a file-commit chain sample; narrows its type. */
export function isChainSample(sample: Sample): sample is ChainSample {
  return sample.sample_type === "file_commit_chain";
}

/** True when `sample` is a SWE sample; narrows its type. */
export function isSweSample(sample: Sample): sample is SweSample {
  return sample.sample_type === "swe";
}

/** True when `sample` is a repository-completion sample; narrows its type. */
export function isRepoCompletionSample(sample: Sample): sample is RepoCompletionSample {
  return sample.sample_type === "repo_completion";
}

/** The repository-level fields every sample of one repository shares. */
export type RepositoryFields = Pick<
  Sample,
  "name" | "default_branch" | "license" | "stargazers" | "created_at" | "topics" | "programming_language" | "project_size"
>;

/** A merge scenario with the published field order, gitgood's `resolvable` (and why not) and `committed_at` last when known. */
function orderedMergeScenario(s: MergeScenario): MergeScenario {
  const ordered: MergeScenario = {
    merge_commit_hash: s.merge_commit_hash,
    parents: s.parents,
    number_of_files_with_merge_conflict: s.number_of_files_with_merge_conflict,
    total_number_of_merge_conflicts: s.total_number_of_merge_conflicts,
    files_in_merge_conflict: s.files_in_merge_conflict,
  };
  if (s.resolvable !== undefined) ordered.resolvable = s.resolvable;
  if (s.resolvable === false && s.unresolvable_reason !== undefined) ordered.unresolvable_reason = s.unresolvable_reason;
  if (s.committed_at !== undefined) ordered.committed_at = s.committed_at;
  return ordered;
}

/** The repository fields of a sample whose source names only the repository (SWE-bench, commit0): the rest unknown. */
export function bareRepositoryFields(name: string, programmingLanguage: string | null, createdAt: string | null = null): RepositoryFields {
  return {
    name,
    default_branch: null,
    license: null,
    stargazers: null,
    created_at: createdAt,
    topics: null,
    programming_language: programmingLanguage,
    project_size: null,
  };
}

/**
 * Serialises a sample with the published field order, so files diff cleanly and ids stay first.
 */
export function sampleToJson(sample: Sample): string {
  const ordered = {
    id: sample.id,
    name: sample.name,
    default_branch: sample.default_branch,
    license: sample.license,
    stargazers: sample.stargazers,
    created_at: sample.created_at,
    topics: sample.topics,
    programming_language: sample.programming_language,
    scenario: isMergeSample(sample) ? orderedMergeScenario(sample.scenario) : sample.scenario,
    sample_type: sample.sample_type,
    project_size: sample.project_size,
    difficulty: sample.difficulty,
  };
  return JSON.stringify(ordered);
}

/** Project size class from lines of code, as GitGoodBench defines it. */
export function projectSizeOf(linesOfCode: number): ProjectSize {
  if (linesOfCode < 1_000) return "tiny";
  if (linesOfCode < 10_000) return "small";
  if (linesOfCode < 100_000) return "medium";
  if (linesOfCode < 1_000_000) return "large";
  return "huge";
}

/**
 * `owner/repo` turned into the id prefix as the published ids have it, Python's
 * `re.sub(r"[^\w]+", "_", name).strip("_")` with `\w` Unicode-aware (letters, digits, underscore):
 * `Kav-K/GPTDiscord` gives `Kav_K_GPTDiscord`, `Kotlin/kotlinx.serialization` `Kotlin_kotlinx_serialization`.
 */
export function idPrefix(name: string): string {
  return name.replace(/[^\p{L}\p{N}_]+/gu, "_").replace(/^_+|_+$/g, "");
}

/** A sample's id as the miner names it: the repository's name, the sample type and a zero-padded index (`owner_repo_merge_0003`). */
export function sampleId(name: string, type: SampleType, index: number): string {
  return `${idPrefix(name)}_${type}_${String(index).padStart(4, "0")}`;
}

/** The commits a sample names, each with the field it comes from. */
export function sampleCommits(s: Sample): { field: string; commit: string }[] {
  if (s.sample_type === "merge") {
    return [
      { field: "merge_commit_hash", commit: s.scenario.merge_commit_hash },
      { field: "parents[0]", commit: s.scenario.parents[0] },
      { field: "parents[1]", commit: s.scenario.parents[1] },
    ];
  }
  if (s.sample_type === "swe") return [{ field: "base_commit", commit: s.scenario.base_commit }];
  if (s.sample_type === "repo_completion") {
    return [
      { field: "base_commit", commit: s.scenario.base_commit },
      { field: "reference_commit", commit: s.scenario.reference_commit },
    ];
  }
  return [
    { field: "newest_commit", commit: s.scenario.newest_commit },
    { field: "oldest_commit", commit: s.scenario.oldest_commit },
  ];
}
