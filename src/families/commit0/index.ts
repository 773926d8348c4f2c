import { COMMIT0_AGENT_KINDS } from "./agents.js";
import { COMMIT0 } from "../../scenarios/commit0/index.js";
import { defineFamily } from "../definition.js";
import { commit0Outcome } from "./outcome-view.js";
import { COMMIT0_CLI } from "./cli.js";
import { COMMIT0_SECTION } from "./report.js";

/** commit0-style repository completion: a library's stubbed functions rebuilt, judged by its tests' pass rate. */
export const COMMIT0_FAMILY = defineFamily({
  name: COMMIT0.name,
  scenarios: [COMMIT0],
  report: COMMIT0_SECTION,
  outcomeView: commit0Outcome,
  cli: COMMIT0_CLI,
  agents: COMMIT0_AGENT_KINDS,
  assessed: false,
});
