import { isSweSample, type SweSample } from "../../dataset/sample.js";
import { ENV_INVALID } from "../../swe/status.js";
import { defineScenario } from "../definition.js";
import type { LiveScenario, ScenarioDefinition } from "../types.js";
import { SweScenario } from "./scenario.js";
import { sweScorer } from "./scorer.js";
import { SweDataSchema, SweFinalStateSchema, type SweData, type SweFinalState } from "./state.js";
import { sweBaselines, sweOracle } from "./strategies.js";
import { SWE_TOOLS } from "./tools.js";
import { sweFailureLabels } from "./labels.js";

const PROMPT = `Your task: fix an issue of a software project, as a developer of the project would. You get the issue
text and the repository at the commit where the issue was reported. Find the code the issue is about,
understand the cause, and change the source files so that the issue is fixed without breaking anything else;
you may run commands (for example the project's tests, or a small script that reproduces the issue) to check
your work. Change only what the fix needs; the project's own tests will judge your change, and hidden tests
written for this issue will be added. When you are done, call finish.`;

/** SWE-style tasks: an issue and a repository at base_commit; the patch is judged by the tests a real fix made pass. */
export const SWE: ScenarioDefinition<SweSample, LiveScenario, SweFinalState> = defineScenario<SweSample, SweScenario, SweFinalState, SweData>({
  name: "SWE",
  title: "SWE-style issue fixing",
  patchTask: true,
  accepts: isSweSample,
  tools: SWE_TOOLS,
  prompt: PROMPT,
  live: () => SweScenario,
  stateSchema: SweDataSchema,
  finalSchema: SweFinalStateSchema,
  scorers: [sweScorer],
  failureLabels: sweFailureLabels,
  groundTruth(scenario, final) {
    const agent = final.encoding === "base64" ? "(binary patch, shown in base64)\n" + final.patch : final.patch;
    return Promise.resolve(`--- gold patch ---\n${scenario.sample.scenario.patch}\n--- agent's patch ---\n${agent}`);
  },
  oracle: sweOracle,
  baselines: sweBaselines,
  describeFinal(state) {
    if (state.invalid !== null) return `swe: ${ENV_INVALID}: ${state.invalid}`;
    const files = state.encoding === "utf8" ? state.patch.split("\n").filter((l) => l.startsWith("diff --git ")).length : null;
    const lines = [`swe: ${state.done ? "finished" : "not finished"}; work tree ${files === null ? "changed (binary patch)" : `changes ${files} file(s)`}`];
    if (state.answer !== null) lines.push(`answer: ${state.answer.length} characters`);
    if (state.encoding === "utf8" && state.patch !== "") lines.push(state.patch.trimEnd());
    return lines.join("\n");
  },
});
