import type { FamilyCommandLine } from "../command-line-types.js";

/** The COMMIT0 family's part of the command line: `gitgood skeleton`, which makes its tasks. */
export const COMMIT0_COMMAND_LINE: FamilyCommandLine = {
  title: "commit0-style repository completion",
  verbs: [
    {
      name: "skeleton",
      term: "skeleton [options] <repo>",
      summary:
        "make a commit0-style repository-completion task: stub every function body under --src, keep the skeleton under refs/gitgood/skeletons/, count the tests passing at the reference",
      load: async () => (await import("./skeleton-command.js")).SKELETON_COMMAND,
    },
  ],
};
