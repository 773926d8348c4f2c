import type { FamilyCommandLine } from "../command-line-types.js";

/** GitGoodBench's part of the command line: its samples are what `gitgood mine` mines by default. */
export const GITGOODBENCH_COMMAND_LINE: FamilyCommandLine = { title: "GitGoodBench scenarios (MCR, IR, ICC)" };
