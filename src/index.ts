// The public API of gitgood: explicit named exports only.
export { GitGoodError, isGitGoodError, toGitGoodError, faultOf, exitCodeFor } from "./errors.js";
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
export { LANGUAGE_EXTENSIONS, DEFAULT_LANGUAGES } from "./dataset/languages.js";
export { normalizeMetadata, readMetadataFile, type RepositoryMetadata } from "./mining/metadata.js";
export { FILTER_RULES, type FilterResult } from "./mining/filters.js";
export { Repo } from "./git/repo.js";
export { DEFAULT_HISTORY, parseHistory, type HistoryDepth } from "./git/store.js";
export { PackCache } from "./git/packs.js";
export type { WorkTreeMode } from "./git/shared-clone.js";
export { readDataset, type Dataset } from "./dataset/importer.js";
export { splitSamples, PUBLISHED_SPLIT, type SplitOptions, type SplitResult } from "./dataset/split.js";
export { statsReport, formatStats, type StatsReport } from "./dataset/stats.js";
export { fetchRepositories, type FetchReposOptions, type ReposReport } from "./dataset/repos.js";
export { parsePythonLiteral, formatPythonLiteral } from "./dataset/pyliteral.js";
export {
  setupScenario,
  openScenario,
  withScenario,
  chooseScenario,
  registerScenario,
  scenarios,
  scenarioNamed,
  scenarioNames,
  scenariosFor,
  type SetupOptions,
  type AnyScenarioDefinition,
  type ScenarioDefinition,
  type ScenarioSession,
  type ScenarioSetupOptions,
  type Strategy,
} from "./scenarios/index.js";
export type { LiveScenario, InitialContext, ScenarioToolResult, HistoryFinalState, FileContent, CommitRecord } from "./scenarios/types.js";
export { MCR } from "./scenarios/mcr/index.js";
export { IR } from "./scenarios/ir/index.js";
export { ICC } from "./scenarios/icc/index.js";
export type { McrFinalState } from "./scenarios/mcr/state.js";
export * from "./families/public.js";
export { repositoryPath, clonePath, type RepoLocator } from "./dataset/clones.js";
export { runScorers, type Scorer, type Score, type ScoreContext, type Scored } from "./scoring/scorer.js";
export { ToolRegistry } from "./tools/registry.js";
export { defineTool, type Tool, type ToolResult } from "./tools/tool.js";
export { agentSupports, type Agent, type Session } from "./agents/agent.js";
export { AgentSession, toolProvider, type ToolProvider, type TrajectoryEvent } from "./runs/session.js";
export { createAgent, agentNames, registerAgentKind, BaselineAgent, StrategyAgent, type AgentKind, type AgentOptions } from "./agents/index.js";
export { LlmAgent } from "./agents/llm.js";
export { OracleAgent } from "./agents/oracle.js";
export { CommandAgent } from "./agents/command.js";
export type { ModelClient, ModelRequest, ModelReply, ChatMessage, ToolSpec, ToolCall, Usage } from "./model/types.js";
export { OpenAIChatClient, type OpenAIClientOptions } from "./model/openai.js";
export { lookupModel, type ModelOptions } from "./model/lookup.js";
export { ResponseCache, cacheDir, withCache, inCacheScope } from "./model/cache.js";
export { ConnectionLimit, withConnectionLimit } from "./model/connections.js";
export { withParameters, type ModelParameters } from "./model/params.js";
export { MeteredModelClient, type ModelUsage } from "./model/meter.js";
export { runBenchmark, type RunOptions, type RunSummary } from "./runs/runner.js";
export {
  chooseIsolation,
  defaultIsolation,
  ISOLATION_MODES,
  type Isolation,
  type IsolationMode,
  type IsolationRequest,
} from "./sandbox/isolation.js";
export { resultRecord, type Prices } from "./runs/result.js";
export { settle, type Attempt, type Recorder } from "./runs/settle.js";
export { rescoreRun, type RescoreOptions, type RescoreSummary } from "./runs/rescore.js";
export { runConfig, RunConfigSchema, type RunConfig, type RunConfigInput } from "./runs/config.js";
export { TrajectorySchema, type Trajectory } from "./runs/trajectory.js";
export { RunStore } from "./runs/store.js";
export { ResultRecordSchema, RESULTS_SCHEMA_VERSION, type ResultRecord } from "./runs/record.js";
export { scoreMerge, exactMatch, type MergeScore } from "./scoring/merge.js";
export { checkHistory, historyChecks, type HistoryChecks } from "./scoring/history.js";
export { pairwiseJudge, type PairwiseOptions } from "./scoring/pairwise.js";
export { DEFAULT_JUDGE_CONTEXT_TOKENS, judgeHistories, type JudgeContext, type JudgeOptions, type JudgeOutcome, type JudgeVerdict } from "./scoring/judge.js";
export { buildReport, REPORT_SCHEMA_VERSION, type Report } from "./report/summary.js";
export { formatReport } from "./report/text.js";
export { renderStaticPage, writeStaticPage, type StaticPageOptions } from "./report/html.js";
export { readStaticPage, type StaticPageData } from "./report/html-read.js";
export { compareReports, type Comparison } from "./report/compare.js";
export { formatComparison } from "./report/text.js";
export { passAtK } from "./report/repeats.js";
export { reportFormats, reportFormat, registerReportFormat, type ReportFormat, type FormatRun } from "./report/formats.js";
export { families, registerFamily, unregisterFamily } from "./families/registry.js";
export { defineFamily, type FamilyDefinition, type ReportSection, type FamilyCli, type OutcomeBlock, type OutcomeInput } from "./families/definition.js";
export { buildSyntheticRepo } from "./demo/synthetic.js";
export {
  MemoryWorkspace,
  initMemory,
  commitMemory,
  branchMemory,
  mergeMemory,
  memoryContext,
  logMemory,
  diffMemory,
  restoreMemory,
  MEMORY_OPERATIONS,
} from "./memory/index.js";
export { MEMORY_TOOLS, scratchMemory } from "./memory/tools.js";
export {
  resolveEnvSpec,
  loadEnvSpecFile,
  parseEnvSpecs,
  prepareEnvironment,
  runTests,
  outcomeOf,
  isPassing,
  setupEnvironmentWithLlm,
  parseJUnitXml,
  parseTestLog,
  cacheRoot,
  type EnvSpec,
  type EnvSpecFile,
  type EnvTarget,
  type Environment,
  type TestOutcome,
  type TestRun,
} from "./envs/index.js";
