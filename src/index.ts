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
export { setupScenario, openScenario, withScenario, kindsOf } from "./scenarios/index.js";
export type { LiveScenario, FinalState, InitialContext, ScenarioKind } from "./scenarios/types.js";
export { ToolRegistry } from "./tools/registry.js";
export { defineTool, type Tool, type ToolResult } from "./tools/tool.js";
export { AgentSession, toolProvider, type Agent, type ToolProvider } from "./agents/agent.js";
export { createAgent, AGENT_NAMES, BaselineAgent } from "./agents/index.js";
export { LlmAgent } from "./agents/llm.js";
export { OracleAgent } from "./agents/oracle.js";
export { CommandAgent } from "./agents/command.js";
export type { ModelClient, ModelRequest, ModelReply, ChatMessage, ToolSpec, ToolCall, Usage } from "./model/types.js";
export { OpenAIChatClient, type OpenAIClientOptions } from "./model/openai.js";
export { lookupModel, type ModelOptions } from "./model/lookup.js";
export { runBenchmark, type RunOptions, type RunSummary } from "./runs/runner.js";
export { resultRecord } from "./runs/result.js";
export { scoreFinal } from "./scoring/final.js";
export { RunStore } from "./runs/store.js";
export { ResultRecordSchema, RESULTS_SCHEMA_VERSION, type ResultRecord } from "./runs/record.js";
export { scoreMerge, type MergeScore } from "./scoring/merge.js";
export { checkHistory, type HistoryChecks } from "./scoring/history.js";
export { judgeHistories, type JudgeOutcome, type JudgeVerdict } from "./scoring/judge.js";
export { buildReport, REPORT_SCHEMA_VERSION, type Report } from "./report/summary.js";
export { formatReport } from "./report/text.js";
export { renderHtml } from "./report/html.js";
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
