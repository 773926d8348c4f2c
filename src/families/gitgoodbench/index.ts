import { ICC } from "../../scenarios/icc/index.js";
import { IR } from "../../scenarios/ir/index.js";
import { MCR } from "../../scenarios/mcr/index.js";
import { defineFamily } from "../definition.js";
import { gitgoodbenchOutcome } from "./outcome-view.js";
import { GITGOODBENCH_COMMAND_LINE } from "./command-line.js";
import { GITGOODBENCH_HARBOR_TASKS } from "./harbor-tasks.js";

/** GitGoodBench: interactive rebase, iterative committing and merge conflict resolution, in the paper's table. */
export const GITGOODBENCH_FAMILY = defineFamily({
  name: "GitGoodBench",
  commandLine: GITGOODBENCH_COMMAND_LINE,
  scenarios: [IR, ICC, MCR],
  outcomeView: gitgoodbenchOutcome,
  harborTasks: GITGOODBENCH_HARBOR_TASKS,
});
