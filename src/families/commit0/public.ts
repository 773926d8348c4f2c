/** The commit0 family's public API (re-exported by the package's index). */
export { COMMIT0 } from "../../scenarios/commit0/index.js";
export type { Commit0FinalState, AttemptRecord } from "../../scenarios/commit0/state.js";
export { Commit0FinalStateSchema, AttemptRecordSchema } from "../../scenarios/commit0/state.js";
export {
  RepoCompletionSampleSchema,
  RepoCompletionScenarioSchema,
  isRepoCompletionSample,
  type RepoCompletionSample,
  type RepoCompletionScenario,
} from "../../dataset/sample.js";
export { makeSkeleton, keptWhole, type SkeletonOptions, type SkeletonResult } from "../../commit0/skeleton.js";
export type { SkeletonStyle, SkipReason } from "../../commit0/skeleton.js";
export { evaluateCompletion, countedTests, type Commit0Evaluation } from "../../commit0/evaluate.js";
export type { Commit0Options } from "../../commit0/options.js";
export { normalizeCommit0Record } from "../../commit0/dataset.js";
export type { NormalizeResult } from "../../dataset/normalize.js";
export { pythonFunctions, replaceFunctionBody, type PythonFunction } from "../../python/edit.js";
export type { BodyReplacement } from "../../python/edit.js";
export { commit0Table, type Commit0Table, type Commit0Row, type Commit0Mean } from "./report.js";
export { Commit0Agent } from "./agents.js";
export type { Commit0AgentOptions } from "./agents.js";
export { COMMIT0_FAMILY } from "./index.js";
