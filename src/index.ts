// The public API of gitgood: explicit named exports only.
export { GitGoodError, isGitGoodError } from "./errors.js";
export {
  SampleSchema,
  MergeSampleSchema,
  ChainSampleSchema,
  MergeScenarioSchema,
  ChainScenarioSchema,
  SAMPLE_SCHEMA_VERSION,
  sampleToJson,
  sampleId,
  projectSizeOf,
  type Sample,
  type MergeSample,
  type ChainSample,
  type MergeScenario,
  type ChainScenario,
  type SampleType,
  type Difficulty,
  type ProjectSize,
} from "./dataset/sample.js";
export { mine, DEFAULT_MINE_OPTIONS, type MineOptions, type MineResult, type MineSummary } from "./mining/mine.js";
export { DROP_REASONS } from "./mining/drops.js";
export { LANGUAGE_EXTENSIONS, DEFAULT_LANGUAGES } from "./mining/languages.js";
export { normalizeMetadata, readMetadataFile, type RepositoryMetadata } from "./mining/metadata.js";
export { FILTER_RULES, type FilterResult } from "./mining/filters.js";
export { Repo } from "./git/repo.js";
export { readDataset, type Dataset } from "./dataset/importer.js";
export { splitSamples, PUBLISHED_SPLIT, type SplitOptions, type SplitResult } from "./dataset/split.js";
export { statsReport, formatStats, type StatsReport } from "./dataset/stats.js";
export { fetchRepositories, type FetchReposOptions, type ReposReport } from "./dataset/repos.js";
export { parsePythonLiteral, formatPythonLiteral } from "./dataset/pyliteral.js";
