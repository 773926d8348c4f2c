// The public API of gitgood for people who run it from code: mine samples, run an agent on them, report.
// Explicit named exports only; test/architecture/api.snapshot.txt lists every name, so a change shows in
// review. By audience, the rest is in sub-paths: gitgood/family (what a family, scenario, scorer or agent
// author builds with), gitgood/model (model clients and providers), gitgood/mcp and gitgood/a2a (the
// servers, so that importing this loads neither SDK), gitgood/testing (scripted models for tests), and
// gitgood/internal (building blocks with no stability promise).

// errors
export { GitGoodError, isGitGoodError, exitCodeFor } from "./errors.js";

// samples
export { readDataset, type Dataset } from "./dataset/importer.js";
export { SampleSchema, sampleId, type Sample, type SampleType } from "./dataset/sample.js";
export { splitSamples, type SplitOptions, type SplitResult } from "./dataset/split.js";
export { statsReport, formatStats, type StatsReport } from "./dataset/stats.js";
export { fetchRepositories, type FetchReposOptions, type ReposReport } from "./dataset/repos.js";
export { mine, DEFAULT_MINE_OPTIONS, type MineInput, type MineOptions, type MineResult, type MineSummary } from "./mining/mine.js";
export { DROP_REASONS } from "./mining/drops.js";
export { buildSyntheticRepo } from "./demo/synthetic.js";

// test environments
export { prepareEnvironment, resolveEnvSpec, runTests, type EnvSpec, type Environment, type PrepareOptions, type TestRun } from "./testenv/index.js";

// agents, isolation and families
export { createAgent, agentNames, registerAgentKind, type AgentKind, type AgentOptions } from "./agents/index.js";
export type { Agent } from "./agents/agent.js";
export { chooseIsolation, type IsolationMode } from "./sandbox/isolation.js";
export { families, registerFamily } from "./families/registry.js";

// runs
export { runBenchmark, type RunOptions, type RunSummary } from "./runs/runner.js";
export { rescoreRun, type RescoreOptions, type RescoreSummary } from "./runs/rescore.js";
export { runConfig, RunConfigSchema, type RunConfig, type RunConfigInput } from "./runs/config.js";
export { RunStore } from "./runs/store.js";
export { ResultRecordSchema, RESULTS_SCHEMA_VERSION, type ResultRecord } from "./runs/record.js";
export { TrajectorySchema, type Trajectory } from "./runs/trajectory.js";
export type { TrajectoryEvent } from "./runs/session.js";

// reports
export { buildReport, REPORT_SCHEMA_VERSION, type Report, type ReportInput } from "./report/summary.js";
export { formatReport, formatComparison } from "./report/text.js";
export { compareReports, type Comparison } from "./report/compare.js";
export { writeStaticPage, type StaticPageOptions } from "./report/html.js";
export { reportFormats, registerReportFormat, type ReportFormat, type FormatRun } from "./report/formats.js";
