import { isChainSample, type ChainSample } from "../../dataset/sample.js";
import { GitGoodError } from "../../errors.js";
import { historyChecks } from "../../scoring/history.js";
import { pairwiseJudge } from "../../scoring/pairwise.js";
import { defineScenario } from "../definition.js";
import type { LiveScenario, ScenarioDefinition } from "../types.js";
import { describeHistory, historyGroundTruth } from "../shared/history-view.js";
import { originalCommits } from "../shared/original.js";
import { HistoryFinalStateSchema, type HistoryFinalState } from "../shared/schemas.js";
import { IccScenario } from "./scenario.js";
import { ICC_SCOPES, IccDataSchema, type IccData, type IccScope } from "./state.js";
import { iccBaselines, iccOracle } from "./strategies.js";
import { ICC_TOOLS } from "./tools.js";
import { historyFailureLabels } from "../shared/history-labels.js";

const PROMPT = `Your task: turn a set of uncommitted changes into a sensible series of commits. The changes are
shown as numbered hunks. Group hunks that belong to one logical change into a commit with a clear message
saying what it does and why, and commit the groups in an order that builds up naturally (for example,
helpers before their callers). After each commit the remaining hunks are numbered again, so look at the
list again before choosing the next hunks. Commit until nothing is left.`;

function scopeOf(settings: Record<string, unknown> | undefined): IccScope {
  const scope = settings?.scope ?? "file";
  if (!ICC_SCOPES.includes(scope as IccScope)) {
    throw new GitGoodError("BAD_OPTION", `ICC scope is file or all, not '${String(scope)}'`);
  }
  return scope as IccScope;
}

/** Iterative committing: commit a chain's combined change hunk by hunk; judged pairwise against the original. */
export const ICC: ScenarioDefinition<ChainSample, LiveScenario, HistoryFinalState> = defineScenario<ChainSample, IccScenario, HistoryFinalState, IccData, { scope: IccScope }>({
  name: "ICC",
  title: "iterative committing of changes",
  family: "GitGoodBench",
  accepts: isChainSample,
  tools: ICC_TOOLS,
  prompt: PROMPT,
  live: () => IccScenario,
  settings: (settings) => ({ scope: scopeOf(settings) }),
  stateSchema: IccDataSchema,
  finalSchema: HistoryFinalStateSchema,
  scorers: [historyChecks, pairwiseJudge(originalCommits, { chainFileOnly: true })],
  failureLabels: historyFailureLabels("changes_uncommitted"),
  groundTruth: (scenario, final, source) => historyGroundTruth(scenario.sandbox, scenario.sample, final, source),
  oracle: iccOracle,
  baselines: iccBaselines,
  describeFinal: (state) => describeHistory("icc", state),
});
