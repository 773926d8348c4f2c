import { isRepoCompletionSample, type RepoCompletionSample } from "../../dataset/sample.js";
import { patchBetween } from "../../git/diff.js";
import { defineScenario } from "../definition.js";
import type { LiveScenario, ScenarioDefinition } from "../types.js";
import { Commit0Scenario } from "./scenario.js";
import { commit0Scorer } from "./scorer.js";
import { Commit0DataSchema, Commit0FinalStateSchema, type Commit0Data, type Commit0FinalState } from "./state.js";
import { commit0Baselines, commit0Oracle } from "./strategies.js";
import { COMMIT0_TOOLS } from "./tools.js";

const PROMPT = `Your task: rebuild a Python library whose function bodies were removed. Every function and method
under the source directory has its signature and docstring but only \`pass\` as its body. Implement the bodies
so that the library works as its docstrings, its other code and its tests say. Replace each body with
replace_function_body: give only the statements of the body, and never rename a function or change its
signature, decorators or docstring (other modules and the tests call them as they are). Look at the modules a
file imports and at its tests before you implement it. Check your code with compile_check and run_tests as you
go. The library's own tests judge your work. When you are done, call finish.`;

/** commit0's repository completion: implement the stubbed functions of a library; its tests' pass rate judges. */
export const COMMIT0: ScenarioDefinition<RepoCompletionSample, LiveScenario, Commit0FinalState> = defineScenario<RepoCompletionSample, Commit0Scenario, Commit0FinalState, Commit0Data>({
  name: "COMMIT0",
  title: "repository completion (commit0)",
  accepts: isRepoCompletionSample,
  tools: COMMIT0_TOOLS,
  prompt: PROMPT,
  live: () => Commit0Scenario,
  stateSchema: Commit0DataSchema,
  finalSchema: Commit0FinalStateSchema,
  scorers: [commit0Scorer],
  async groundTruth(scenario, final, source) {
    const sc = scenario.sample.scenario;
    const reference = Buffer.from(await patchBetween(source, sc.base_commit, sc.reference_commit), "latin1").toString("utf8");
    const agent = final.encoding === "base64" ? `(binary change, in base64)\n${final.patch}` : final.patch;
    return `--- reference (skeleton → reference) ---\n${reference}--- agent's change (skeleton → work tree) ---\n${agent}`;
  },
  oracle: commit0Oracle,
  baselines: commit0Baselines,
  describeFinal(state) {
    const files = state.encoding === "utf8" ? state.patch.split("\n").filter((l) => l.startsWith("diff --git ")).length : null;
    const lines = [
      `commit0: ${state.done ? "finished" : "not finished"}; ${files === null ? "work tree changed (binary change)" : `${files} file(s) changed`}; ${state.stubs_left} stub(s) left`,
    ];
    if (state.best) lines.push(`best commit ${state.best.commit.slice(0, 12)}: ${state.best.passed} counted test(s) passing`);
    for (const h of state.history) lines.push(`  ${h.file} attempt ${h.attempt}: ${h.commit.slice(0, 12)} ${h.passed === null ? "-" : `${h.passed} passing`} (${h.outcome})`);
    return lines.join("\n");
  },
});
