/** The SWE family's public API (re-exported by the package's index). */
export { SWE } from "../../scenarios/swe/index.js";
export type { SweFinalState } from "../../scenarios/swe/state.js";
export { SweSampleSchema, SweScenarioSchema, isSweSample, type SweSample, type SweScenario } from "../../dataset/sample.js";
export { normalizeSweRecord, sweDifficulty } from "../../swe/dataset.js";
export { evaluatePatch, applyWithStrategies, APPLY_STRATEGIES, type SweEvaluation, type ApplyStrategy } from "../../swe/evaluate.js";
export { validateInstance, type InstanceValidation } from "../../swe/validate.js";
export { extractPatch, extractWithModel, patchFromAnswer, type ExtractedPatch } from "../../swe/extract.js";
export { readPredictions, predictionsJsonl, type Prediction } from "../../swe/predictions.js";
export { sweStatus, sweResolution, passRate, SWE_STATUSES, SWE_RESOLUTIONS, ENV_INVALID, type SweStatus, type SweResolution, type TestTally } from "../../swe/status.js";
export type { SweOptions } from "../../swe/options.js";
export { agentBeatsResults, type AgentBeatsResults, type EvalResult } from "./report.js";
export { SWE_FAMILY } from "./index.js";
export { mineSwe, type SweMineInput, type SweMineResult } from "../../swe/mine/mine.js";
