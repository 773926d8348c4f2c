import { isChainSample, type ChainSample } from "../../dataset/sample.js";
import { historyChecks } from "../../scoring/history.js";
import { pairwiseJudge } from "../../scoring/pairwise.js";
import { defineScenario } from "../definition.js";
import type { LiveScenario, ScenarioDefinition } from "../types.js";
import { describeHistory, historyGroundTruth } from "../shared/history-view.js";
import { originalCommits } from "../shared/original.js";
import { HistoryFinalStateSchema, type HistoryFinalState } from "../shared/schemas.js";
import { IrScenario } from "./scenario.js";
import { IrDataSchema, type IrData } from "./state.js";
import { irBaselines, irOracle } from "./strategies.js";
import { IR_TOOLS } from "./tools.js";
import { historyFailureLabels } from "../shared/history-labels.js";

const PROMPT = `Your task: clean up a short chain of commits with an interactive rebase, as a careful developer would
before sharing them. Look at each commit's changes and message. Then write the rebase plan: keep, reorder,
combine (squash or fixup) or reword commits so that the history tells a clear story, each commit holding
one coherent change with a message that says what it does and why. Give every commit exactly one entry.
Then run the rebase. If the rebase stops on a conflict, resolve it with the conflict tools or abort.`;

/** Interactive rebase: clean up a file-commit chain; judged pairwise against the original history. */
export const IR: ScenarioDefinition<ChainSample, LiveScenario, HistoryFinalState> = defineScenario<ChainSample, IrScenario, HistoryFinalState, IrData>({
  name: "IR",
  title: "interactive rebase",
  family: "GitGoodBench",
  accepts: isChainSample,
  tools: IR_TOOLS,
  prompt: PROMPT,
  live: () => IrScenario,
  stateSchema: IrDataSchema,
  finalSchema: HistoryFinalStateSchema,
  scorers: [historyChecks, pairwiseJudge(originalCommits)],
  failureLabels: historyFailureLabels("rebase_in_progress"),
  groundTruth: (scenario, final, source) => historyGroundTruth(scenario.sandbox, scenario.sample, final, source),
  oracle: irOracle,
  baselines: irBaselines,
  describeFinal: (state) => describeHistory("ir", state),
});
