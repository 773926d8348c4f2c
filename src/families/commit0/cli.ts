import { z } from "zod";
import { DEFAULT_ATTEMPTS } from "./agents.js";
import type { Commit0Options } from "../../commit0/options.js";
import { familySetting, settingOfOption, specValue, type RunSpec } from "../../runs/spec.js";
import type { FamilyCli, SettingsContext } from "../definition.js";
import { positiveIntOption } from "../../util/options.js";

/*
 * The COMMIT0 family's settings (run.json's `spec.commit0`): the loop agents' attempts and which tests
 * are a file's related ones, options of `run` only. The environment settings (`--env-spec`,
 * `--test-timeout`, `--setup-timeout`) are the SWE family's, read from its fragment here (by their
 * options: a family imports no other's files) as they serve COMMIT0 alike.
 */

/** Attempts per file of the commit0-debug agent (null: the agent's default). */
const ATTEMPTS = familySetting<number | null>("commit0", {
  key: "attempts",
  option: "attempts",
  value: "<n>",
  help: `COMMIT0: attempts per file of the commit0-debug agent (default ${DEFAULT_ATTEMPTS})`,
  schema: z.number().int().min(1).nullable(),
  parse: (text, option) => positiveIntOption(option)(text),
  default: null,
  identity: false,
  verbs: ["run"],
});

/** The pattern naming a source file's related tests (null: the default, the stem in the test file's name). */
const RELATED_TESTS = familySetting<string | null>("commit0", {
  key: "related_tests",
  option: "related-tests",
  value: "<pattern>",
  help: "COMMIT0: a file's related tests, {stem} the file's name without .py, * and ** wildcards (default '*{stem}*': the stem in the test file's name)",
  schema: z.string().min(1).nullable(),
  default: null,
  identity: false,
  verbs: ["run"],
});

/** The value of the environment setting another family declares with the option `--option` (none: undefined, COMMIT0's default). */
function environmentValue<T>(spec: RunSpec, option: string): T | undefined {
  const setting = settingOfOption(option);
  return setting ? ((specValue(spec, setting) ?? undefined) as T | undefined) : undefined;
}

/** The COMMIT0 settings the spec asks for (`settings.commit0`), with the isolation of this process. */
function commit0Settings(spec: RunSpec, ctx: Pick<SettingsContext, "isolation">): { commit0: Commit0Options } {
  return {
    commit0: {
      envSpecFile: environmentValue<string>(spec, "env-spec"),
      testTimeoutSeconds: environmentValue<number>(spec, "test-timeout"),
      setupTimeoutSeconds: environmentValue<number>(spec, "setup-timeout"),
      relatedTests: specValue(spec, RELATED_TESTS) ?? undefined,
      isolation: ctx.isolation,
    },
  };
}

/** The commit0 family's part of a run: the loop agents' attempts and which tests are a file's related ones. */
export const COMMIT0_CLI: FamilyCli = {
  settings: [ATTEMPTS, RELATED_TESTS],
  // Every verb: `mcp` and `serve` evaluate an attempt with the environment and time limits `run` would.
  scenarioSettings: (spec, _verb, ctx) => commit0Settings(spec, ctx),
  prepare: (spec, samples) => {
    const attempts = specValue(spec, ATTEMPTS);
    return { samples, ...(attempts !== null ? { agentOptions: { attempts } } : {}) };
  },
};
