// gitgood/types: the record types the root entry point's options and results are made of (a comparison's
// rows, a mining summary's counts and drops, a test environment's styles, a report's tables, ...), for code
// that calls `gitgood` and needs to name one of them. Types only: importing this loads nothing at run time.
// The root keeps to the functions and their option and result types; a family's own types (its samples,
// its report section's rows) are with the family in gitgood/family. test/architecture/api.snapshot.txt
// lists every name here.

// samples and datasets
export type { Difficulty } from "./dataset/sample.js";
export type { ReadDatasetOptions, DatasetFileInfo } from "./dataset/importer.js";
export type { SplitGroup } from "./dataset/split.js";
export type { DatasetStats, LanguageCount, Distribution } from "./dataset/stats.js";
export type { RepositoryOutcome, RepositoryStatus, UnverifiedSample, MissingCommit } from "./dataset/repos.js";
export type { SyntheticOptions } from "./demo/synthetic.js";

// mining
export type { MineProgress, Counts } from "./mining/mine.js";
export type { RepositoryMetadata } from "./mining/metadata.js";
export type { DifficultyThresholds } from "./mining/purity.js";
export type { DateWindow } from "./mining/window.js";
export type { MergeDrop, ChainDrop } from "./mining/drops.js";
export type { FilterResult } from "./mining/filters.js";

// test environments
export type { EnvKind, IdStyle, LogFormat, TestArgStyle, RunTestsOptions } from "./testenv/types.js";

// runs
export type { Executor, Admit } from "./runs/executor.js";
export type { Job, Settled } from "./runs/types.js";
export type { Shard } from "./runs/shard.js";
export type { TrajectoryEntry } from "./runs/session.js";

// reports
export type { ReportTables, RateRow, LanguageRow, SampleRow } from "./report/summary.js";
export type { CostPerSolved } from "./report/cost-per-solved.js";
export type { FailureCause } from "./runs/failures.js";
export type { RepeatRow } from "./report/repeats.js";
export type { ReportSections, FormatContext } from "./families/definition.js";
export type { LabelledReport, ComparisonColumn, ComparisonRow, ComparisonCell, Measure, Difference, Outcome, SampleOverlap } from "./report/compare.js";
export type { TextSink } from "./report/html.js";
