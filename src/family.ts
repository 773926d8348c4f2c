// gitgood/family: what a family author builds with (a family adds scenarios, sample types, scorers, agents,
// report sections and CLI verbs through one definition): the definition and its registry, scenarios, tools,
// scoring, memory, test environments, the sample schemas, and each built-in family's own API to reuse.
// Explicit named exports; test/architecture/api.snapshot.txt lists every name.

// errors and history depth
export { toGitGoodError, faultOf } from "./errors.js";
export { DEFAULT_HISTORY, parseHistory, type HistoryDepth } from "./git/store.js";

// the definition and its registry
export { families, registerFamily, unregisterFamily } from "./families/registry.js";
export {
  defineFamily,
  type FamilyDefinition,
  type FamilyRelease,
  type ReleaseTesting,
  type ReleaseMineSummary,
  type ReportSection,
  type FamilyCli,
  type OutcomeBlock,
  type OutcomeInput,
  type ParticipantTask,
  type ParticipantWork,
  type ParticipantTaskOptions,
} from "./families/definition.js";
export type { FamilyCommandLine, FamilyVerb, FamilyMineType, MineMode, CommandIO, CommandOption, CommandArgument, CommandDefinition } from "./families/command-line-types.js";
export type { RunIO, RunPreparation, SettingsContext, TextKit, HtmlKit, FamilyVerb as CliVerb } from "./families/definition.js";
export { familySetting, specValue, type FamilySetting, type FamilySettingFields, type RunSetting, type RunSpec, type SettingKind, type RequestRule } from "./runs/spec.js";
export type { HarborTask, HarborTaskInput, HarborParts, TaskFile } from "./families/harbor-kit.js";
export type { RecordImporter } from "./dataset/importer.js";

// tools and isolation
export { ToolRegistry } from "./tools/registry.js";
export { defineTool, type Tool, type ToolResult } from "./tools/tool.js";
export type { ToolDefinition } from "./tools/tool.js";
export type { FunctionTool } from "./tools/schema.js";
export type { Sandbox, SandboxOptions } from "./sandbox/sandbox.js";
export type { ExecOptions, ExecResult } from "./sandbox/exec.js";
export type { IsolationLimits, IsolationBackend, IsolatedCommand, LimitEnforcement, Jail } from "./sandbox/isolation/types.js";
export { LIMIT_NAMES, type JailLimits, type LimitName, type Enforcement } from "./sandbox/isolation/limits.js";
export { chooseIsolation, defaultIsolation, isolationModes, registerIsolation, type Isolation, type IsolationMode, type IsolationRequest } from "./sandbox/isolation.js";

// test environments of the test-scored families
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
export type { LlmSetupOptions, LlmSetupResult } from "./testenv/types.js";
export type { JUnitCase } from "./testenv/junit.js";

// samples: the union and its shared parts (each family's own schemas are with the family, below)
export { SampleSchema, SAMPLE_SCHEMA_VERSION, sampleToJson, sampleId, projectSizeOf, type Sample, type SampleType, type Difficulty, type ProjectSize } from "./dataset/sample.js";
export { repositoryPath, clonePath, type RepoLocator } from "./dataset/clones.js";
export { LANGUAGE_EXTENSIONS, DEFAULT_LANGUAGES } from "./dataset/languages.js";
export { DIFFICULTIES, PROJECT_SIZES } from "./dataset/sample.js";

// scoring
export { runScorers, type Scorer, type Score, type ScoreContext, type Scored, type ShapedReward } from "./scoring/scorer.js";
export { scoreMerge, exactMatch, type MergeScore } from "./scoring/merge.js";
export type { MergeOutcome, FileMatch } from "./scoring/merge.js";
export type { RegionTaken, RegionSide } from "./scoring/merge-sides.js";
export { checkHistory, historyChecks, type HistoryChecks } from "./scoring/history.js";
export type { HistoryOutcome } from "./scoring/history.js";
export { pairwiseJudge, type PairwiseOptions } from "./scoring/pairwise.js";
export { DEFAULT_JUDGE_CONTEXT_TOKENS, judgeHistories, type JudgeContext, type JudgeOptions, type JudgeOutcome, type JudgeVerdict } from "./scoring/judge.js";
export type { Winner, JudgedCommit } from "./scoring/judge.js";
export type { InstructionFinding } from "./scoring/instructions.js";

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
export type { WorkspaceOptions, BranchFile } from "./memory/memory-workspace.js";
export type { MemoryGit, MergeAttempt, StatusEntry } from "./git/memory-git.js";
export type { MemoryOperation } from "./memory/operations.js";
export type { InitInput, InitResult } from "./memory/init.js";
export type { CommitInput, CommitResult } from "./memory/commit.js";
export type { BranchInput, BranchResult } from "./memory/branch.js";
export type { MergeInput, MergeResult } from "./memory/merge.js";
export type { DiffInput, RestoreResult } from "./memory/history.js";
export type { LogResult } from "./memory/log.js";
export type { TraceRecord } from "./memory/trace.js";
export type { ContextQuery } from "./memory/context.js";

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
export { HistoryFinalStateSchema, FileContentSchema, CommitRecordSchema } from "./scenarios/shared/schemas.js";
export type { Chain, ChainCommit } from "./scenarios/shared/schemas.js";
export type { ConflictState, ConflictFile, ConflictEntry, LinkSides } from "./scenarios/shared/conflicts.js";
export type { Person } from "./git/commits.js";
// writing a family (examples/toy-family/, docs/plugins.md): a sample type's common fields, a scenario's definition and live base
export { COMMON_SAMPLE_FIELDS, type SampleTypeDefinition } from "./dataset/sample.js";
export { defineScenario } from "./scenarios/definition.js";
export type { ScenarioSpec, LiveClass } from "./scenarios/definition.js";
export { ScenarioBase, inNewSandbox } from "./scenarios/shared/base.js";

// agents
export { agentSupports, type Agent, type Session } from "./agents/agent.js";
export type { ToolEndpoint } from "./agents/agent.js";
export type { StrategyEntry } from "./agents/strategies.js";
export { registerAgentKind, BaselineAgent, StrategyAgent, type AgentKind, type AgentOptions } from "./agents/index.js";
export { LlmAgent } from "./agents/llm.js";
export type { LlmAgentOptions } from "./agents/llm.js";
export { OracleAgent } from "./agents/oracle.js";
export { CommandAgent } from "./agents/command.js";
export type { RunProxy, ModelProxy, ProxyOptions, ProxyRecorder, ProxyAttempt, RecordModelIo, Upstream, UpstreamFamily } from "./proxy/index.js";

// report sections and formats
export { registerReportFormat, unregisterReportFormat, type ReportFormat, type FormatRun } from "./report/formats.js";
export { passAtK } from "./report/repeats.js";
export type { ResultRecord } from "./runs/record.js";

// each built-in family's own API: GitGoodBench, SWE, COMMIT0
export * from "./families/public.js";
