import { isMergeSample, type MergeSample } from "../../dataset/sample.js";
import { GitGoodError } from "../../errors.js";
import { exactMatch } from "../../scoring/merge.js";
import { defineScenario } from "../definition.js";
import type { LiveScenario, ScenarioDefinition } from "../types.js";
import { mergeGroundTruth } from "./ground-truth.js";
import { McrScenario } from "./scenario.js";
import { MCR_TOOL_SETS, McrDataSchema, McrFinalStateSchema, type McrData, type McrFinalState, type McrToolSet } from "./state.js";
import { mcrBaselines, mcrOracle } from "./strategies.js";
import { MCR_OPTIONAL_TOOLS, MCR_TOOLS } from "./tools.js";
import { mcrFailureLabels } from "./labels.js";

const PROMPT = `Your task: resolve a merge conflict the way the project's developers did. Two lines of development
were merged and git could not combine some of their changes; each conflict is a region between a
"<<<<<<<" and a ">>>>>>>" line, with one side's text above "=======" and the other side's below it. Resolve
the conflicts one at a time, in order, starting with conflict 0. For each one, look at it with enough
surrounding code to understand both changes, then replace the whole region (markers included) with the
code that belongs there: often a combination of both sides, sometimes one side. The text you give replaces
the region exactly as written, so include line breaks where the file needs them and leave out the markers.
Keep the file's style and indentation. After the last conflict the merge is committed for you.`;

/** The `mcrTools` setting (`--mcr-tools`): the published tools unless `extended` is asked for. */
function mcrToolsOf(settings: Record<string, unknown> | undefined): McrToolSet {
  const tools = settings?.mcrTools ?? "paper";
  if (!MCR_TOOL_SETS.includes(tools as McrToolSet)) {
    throw new GitGoodError("BAD_OPTION", `MCR tools are ${MCR_TOOL_SETS.join(" or ")}, not '${String(tools)}'`);
  }
  return tools as McrToolSet;
}

/** Merge conflict resolution: reproduce the resolution a real merge commit recorded (exact match). */
export const MCR: ScenarioDefinition<MergeSample, LiveScenario, McrFinalState> = defineScenario<MergeSample, McrScenario, McrFinalState, McrData, { tools: McrToolSet }>({
  name: "MCR",
  title: "merge conflict resolution",
  family: "GitGoodBench",
  accepts: isMergeSample,
  tools: MCR_TOOLS,
  optionalTools: MCR_OPTIONAL_TOOLS,
  prompt: PROMPT,
  live: () => McrScenario,
  settings: (settings) => ({ tools: mcrToolsOf(settings) }),
  stateSchema: McrDataSchema,
  finalSchema: McrFinalStateSchema,
  scorers: [exactMatch],
  failureLabels: mcrFailureLabels,
  groundTruth: (scenario, final, source) => mergeGroundTruth(scenario.sample, scenario.sandbox, final, source),
  oracle: mcrOracle,
  baselines: mcrBaselines,
  describeFinal(state) {
    const lines = [
      `mcr: ${state.done ? "merge committed" : "not finished"}; conflicts left: ${state.conflicts_left}`,
      `head ${state.head ?? "-"}  tree ${state.tree ?? "-"}`,
    ];
    for (const f of state.files) lines.push(`  ${f.path}: ${f.content === null ? "deleted" : `${f.content.length} characters (${f.encoding})`}`);
    return lines.join("\n");
  },
});
