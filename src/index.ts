// The public API of gitgood, by layer, bottom first (the order of LAYERS in eslint.config.js). Explicit
// named exports only; test/architecture/api.snapshot.txt lists every name, so a change shows in review.
// Building blocks with no stability promise (the git door, sessions, cache scopes) are in gitgood/internal;
// the MCP and A2A front ends are gitgood/mcp and gitgood/a2a, so that importing this loads neither SDK.

// errors
export { GitGoodError, isGitGoodError, toGitGoodError, faultOf, exitCodeFor } from "./errors.js";

// git
export { DEFAULT_HISTORY, parseHistory, type HistoryDepth } from "./git/store.js";

// model
export type { ModelClient, ModelRequest, ModelReply, ChatMessage, ToolSpec, ToolCall, Usage } from "./model/types.js";
export { OpenAIChatClient, type OpenAIClientOptions } from "./model/openai.js";
export { lookupModel, type ModelOptions } from "./model/lookup.js";
export { ResponseCache, withCache } from "./model/cache.js";
export { ConnectionLimit, withConnectionLimit } from "./model/connections.js";
export { withParameters, type ModelParameters } from "./model/params.js";
export { MeteredModelClient, type ModelUsage } from "./model/meter.js";

// tools
export { ToolRegistry } from "./tools/registry.js";
export { defineTool, type Tool, type ToolResult } from "./tools/tool.js";

// sandbox
export {
  chooseIsolation,
  defaultIsolation,
  isolationModes,
  registerIsolation,
  type Isolation,
  type IsolationMode,
  type IsolationRequest,
} from "./sandbox/isolation.js";

// envs: test environments of the test-scored families
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
  type EnvSpec,
  type EnvSpecFile,
  type EnvTarget,
  type Environment,
  type TestOutcome,
  type TestRun,
} from "./testenv/index.js";

// dataset: the sample union (each family's own schemas are with the family, below)
export {
  SampleSchema,
  SAMPLE_SCHEMA_VERSION,
  sampleToJson,
  sampleId,
  projectSizeOf,
  type Sample,
  type SampleType,
  type Difficulty,
  type ProjectSize,
} from "./dataset/sample.js";
export { readDataset, type Dataset } from "./dataset/importer.js";
export { repositoryPath, clonePath, type RepoLocator } from "./dataset/clones.js";
export { splitSamples, PUBLISHED_SPLIT, type SplitOptions, type SplitResult } from "./dataset/split.js";
export { statsReport, formatStats, type StatsReport } from "./dataset/stats.js";
export { fetchRepositories, type FetchReposOptions, type ReposReport } from "./dataset/repos.js";
export { LANGUAGE_EXTENSIONS, DEFAULT_LANGUAGES } from "./dataset/languages.js";

// mining
export { mine, DEFAULT_MINE_OPTIONS, type MineOptions, type MineResult, type MineSummary } from "./mining/mine.js";
export { DROP_REASONS } from "./mining/drops.js";
export { normalizeMetadata, readMetadataFile, type RepositoryMetadata } from "./mining/metadata.js";
export { FILTER_RULES, type FilterResult } from "./mining/filters.js";

// scoring
export { runScorers, type Scorer, type Score, type ScoreContext, type Scored } from "./scoring/scorer.js";
export { scoreMerge, exactMatch, type MergeScore } from "./scoring/merge.js";
export { checkHistory, historyChecks, type HistoryChecks } from "./scoring/history.js";
export { pairwiseJudge, type PairwiseOptions } from "./scoring/pairwise.js";
export { DEFAULT_JUDGE_CONTEXT_TOKENS, judgeHistories, type JudgeContext, type JudgeOptions, type JudgeOutcome, type JudgeVerdict } from "./scoring/judge.js";

// memory
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

// scenarios
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

// agents
export { agentSupports, type Agent, type Session } from "./agents/agent.js";
export { createAgent, agentNames, registerAgentKind, BaselineAgent, StrategyAgent, type AgentKind, type AgentOptions } from "./agents/index.js";
export { LlmAgent } from "./agents/llm.js";
export { OracleAgent } from "./agents/oracle.js";
export { CommandAgent } from "./agents/command.js";

// runs
export { runBenchmark, type RunOptions, type RunSummary } from "./runs/runner.js";
export type { TrajectoryEvent } from "./runs/session.js";
export type { Prices } from "./runs/result.js";
export { rescoreRun, type RescoreOptions, type RescoreSummary } from "./runs/rescore.js";
export { runConfig, RunConfigSchema, type RunConfig, type RunConfigInput } from "./runs/config.js";
export { TrajectorySchema, type Trajectory } from "./runs/trajectory.js";
export { RunStore } from "./runs/store.js";
export { ResultRecordSchema, RESULTS_SCHEMA_VERSION, type ResultRecord } from "./runs/record.js";

// families: the registry, then each family's own API (GitGoodBench, SWE, COMMIT0)
export { families, registerFamily, unregisterFamily } from "./families/registry.js";
export {
  defineFamily,
  type FamilyDefinition,
  type ReportSection,
  type FamilyCli,
  type OutcomeBlock,
  type OutcomeInput,
  type ParticipantTask,
  type ParticipantWork,
  type ParticipantTaskOptions,
} from "./families/definition.js";
export type { FamilyCommandLine, FamilyVerb, FamilyMineType, MineMode, CommandIO } from "./families/command-line.js";
export * from "./families/public.js";

// report
export { buildReport, REPORT_SCHEMA_VERSION, type Report } from "./report/summary.js";
export { formatReport, formatComparison } from "./report/text.js";
export { renderStaticPage, writeStaticPage, type StaticPageOptions } from "./report/html.js";
export { readStaticPage, type StaticPageData } from "./report/html-read.js";
export { compareReports, type Comparison } from "./report/compare.js";
export { passAtK } from "./report/repeats.js";
export { reportFormats, reportFormat, registerReportFormat, unregisterReportFormat, type ReportFormat, type FormatRun } from "./report/formats.js";

// demo
export { buildSyntheticRepo } from "./demo/synthetic.js";
