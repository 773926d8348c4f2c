import { COMMIT0_AGENT_KINDS } from "./agents.js";
import { COMMIT0 } from "../../scenarios/commit0/index.js";
import { defineFamily } from "../definition.js";
import { commit0Outcome } from "./outcome-view.js";
import { COMMIT0_CLI } from "./cli.js";
import { COMMIT0_SECTION } from "./report.js";
import { COMMIT0_COMMAND_LINE } from "./command-line.js";
import { COMMIT0_IMPORTER } from "../../commit0/dataset.js";
import { COMMIT0_HARBOR_TASK } from "./harbor-task.js";

/** commit0-style repository completion: a library's stubbed functions rebuilt, judged by its tests' pass rate. */
export const COMMIT0_FAMILY = defineFamily({
  name: COMMIT0.name,
  commandLine: COMMIT0_COMMAND_LINE,
  scenarios: [COMMIT0],
  importers: [COMMIT0_IMPORTER],
  report: COMMIT0_SECTION,
  outcomeView: commit0Outcome,
  cli: COMMIT0_CLI,
  agents: COMMIT0_AGENT_KINDS,
  harborTasks: [COMMIT0_HARBOR_TASK],
  assessed: false,
});
