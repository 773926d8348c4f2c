import type { FamilyCommandLine } from "../command-line-types.js";

/** The SWE family's part of the command line: `gitgood mine --type swe`. */
export const SWE_COMMAND_LINE: FamilyCommandLine = {
  title: "SWE-style tasks",
  mineTypes: [{ type: "swe", what: "validated SWE-bench instances", load: async () => (await import("./mine-command.js")).SWE_MINE_MODE }],
};
