/** The GitGoodBench family's public API (re-exported by the package's index): its scenarios and sample schemas. */
export { MCR } from "../../scenarios/mcr/index.js";
export { IR } from "../../scenarios/ir/index.js";
export { ICC } from "../../scenarios/icc/index.js";
export type { McrFinalState } from "../../scenarios/mcr/state.js";
export { McrFinalStateSchema } from "../../scenarios/mcr/state.js";
export {
  MergeSampleSchema,
  ChainSampleSchema,
  MergeScenarioSchema,
  ChainScenarioSchema,
  isMergeSample,
  isChainSample,
  type MergeSample,
  type ChainSample,
  type MergeScenario,
  type ChainScenario,
} from "../../dataset/sample.js";
export { GITGOODBENCH_FAMILY } from "./index.js";
