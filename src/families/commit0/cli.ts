import { z } from "zod";
import { DEFAULT_ATTEMPTS } from "./agents.js";
import type { Commit0Options } from "../../commit0/options.js";
import type { FamilyCli, SettingsContext } from "../definition.js";
import { positiveIntOption as positiveInt } from "../../util/options.js";

/**
 * The repository-completion flags of `run`; the environment flags (`--env-spec`, `--test-timeout`,
 * `--setup-timeout`) are the SWE family's, read here as they serve COMMIT0 alike.
 */
const Commit0FlagsSchema = z.object({
  attempts: z.number().int().min(1).optional(),
  relatedTests: z.string().optional(),
  envSpec: z.string().optional(),
  testTimeout: z.number().int().min(1).optional(),
  setupTimeout: z.number().int().min(1).optional(),
});
type Commit0Flags = z.infer<typeof Commit0FlagsSchema>;

/** The COMMIT0 settings the flags ask for (`settings.commit0`). */
function commit0Settings(flags: Commit0Flags, ctx: Pick<SettingsContext, "isolation">): { commit0: Commit0Options } {
  return {
    commit0: {
      envSpecFile: flags.envSpec,
      testTimeoutSeconds: flags.testTimeout,
      setupTimeoutSeconds: flags.setupTimeout,
      relatedTests: flags.relatedTests,
      isolation: ctx.isolation,
    },
  };
}

/** The commit0 family's command line: the loop agents' attempts and which tests are a file's related ones. */
export const COMMIT0_CLI: FamilyCli<Commit0Flags> = {
  flags: Commit0FlagsSchema,
  options: (verb) =>
    verb === "run"
      ? [
          { flags: "--attempts <n>", help: `COMMIT0: attempts per file of the commit0-debug agent (default ${DEFAULT_ATTEMPTS})`, parse: positiveInt("--attempts") },
          {
            flags: "--related-tests <pattern>",
            help: "COMMIT0: a file's related tests, {stem} the file's name without .py, * and ** wildcards (default '*{stem}*': the stem in the test file's name)",
          },
        ]
      : [],
  // Every verb: `mcp` and `serve` evaluate an attempt with the environment and time limits `run` would.
  settings: (flags, _verb, ctx) => commit0Settings(flags, ctx),
  prepare: (flags, samples) => ({ samples, ...(flags.attempts !== undefined ? { agentOptions: { attempts: flags.attempts } } : {}) }),
};
