import path from "node:path";
import { z } from "zod";
import { familySetting, type FamilySetting } from "../../runs/spec.js";
import { DEFAULT_SETUP_TIMEOUT, DEFAULT_TEST_TIMEOUT } from "../../swe/options.js";
import { positiveIntOption } from "../../util/options.js";

/*
 * The SWE family's settings: its fragment of the run spec (run.json's `spec.swe`), one declaration each
 * for the options of the verbs that take it, the configuration file, run.json and queue tickets. A file
 * is recorded by its absolute path and read where the run happens; a model by its name, made a client
 * there. The environment settings serve the COMMIT0 family alike, which reads them from this fragment.
 */

/** Verbs that set up SWE tasks: `run`, `env`, and `mcp`/`serve`. */
const SETTING_UP = ["run", "env", "mcp"] as const;
/** The environment settings are also `export harbor`'s: its Dockerfile and its check use them. */
const ENVIRONMENT = [...SETTING_UP, "harbor"] as const;

const FILE = z.string().min(1).nullable();
const absolute = (text: string): string => path.resolve(text);

/** Give the agent the instance's hints_text. */
export const HINTS = familySetting<boolean>("swe", {
  key: "hints",
  option: "hints",
  help: "SWE: give the agent the instance's hints_text (SWE-bench's default is no hints)",
  schema: z.boolean(),
  default: false,
  identity: true,
  verbs: SETTING_UP,
});

/** An environment spec file over the built-in defaults (absolute; read where the run happens). */
export const ENV_SPEC = familySetting<string | null>("swe", {
  key: "env_spec",
  option: "env-spec",
  value: "<file>",
  help: "SWE: environment specs (YAML) per repository and version, over the built-in defaults",
  schema: FILE,
  parse: absolute,
  default: null,
  identity: false,
  verbs: ENVIRONMENT,
});

/** How environments are built: from the spec, or by an LLM agent with `--model` (null: from the spec). */
export const ENV_SETUP = familySetting<"default" | "llm" | null>("swe", {
  key: "env_setup",
  option: "env-setup",
  value: "<how>",
  help: "SWE: build environments from the spec (default), or by an LLM agent with --model (llm)",
  schema: z.enum(["default", "llm"]).nullable(),
  choices: ["default", "llm"],
  default: null,
  identity: false,
  verbs: SETTING_UP,
});

/** The model that turns a free-text answer into a diff (null: none). */
export const EXTRACT_WITH = familySetting<string | null>("swe", {
  key: "extract_with",
  option: "extract-with",
  value: "<model>",
  help: "SWE: a model that turns an agent's free-text answer into a diff when it holds none",
  schema: z.string().min(1).nullable(),
  default: null,
  identity: false,
  verbs: SETTING_UP,
});

/** Seconds one test run of an evaluation may take. */
export const TEST_TIMEOUT = familySetting<number>("swe", {
  key: "test_timeout_s",
  option: "test-timeout",
  value: "<seconds>",
  help: "SWE: time limit of one test run of an evaluation",
  schema: z.number().int().min(1),
  parse: (text, option) => positiveIntOption(option)(text),
  default: DEFAULT_TEST_TIMEOUT,
  identity: false,
  verbs: ENVIRONMENT,
});

/** Seconds building one environment may take. */
export const SETUP_TIMEOUT = familySetting<number>("swe", {
  key: "setup_timeout_s",
  option: "setup-timeout",
  value: "<seconds>",
  help: "SWE: time limit for building one environment",
  schema: z.number().int().min(1),
  parse: (text, option) => positiveIntOption(option)(text),
  default: DEFAULT_SETUP_TIMEOUT,
  identity: false,
  verbs: ENVIRONMENT,
});

/** A SWE-bench predictions file whose patches are evaluated instead of running an agent (absolute; null: none). */
export const PREDICTIONS = familySetting<string | null>("swe", {
  key: "predictions",
  option: "predictions",
  value: "<file>",
  help: "SWE: evaluate the patches of a SWE-bench predictions file (JSONL or JSON) instead of running an agent",
  schema: FILE,
  parse: absolute,
  default: null,
  identity: true,
  verbs: ["run"],
});

/** Where the run's patches are written as a SWE-bench predictions file, once it is done (absolute; null: nowhere). */
export const PREDICTIONS_OUT = familySetting<string | null>("swe", {
  key: "predictions_out",
  option: "predictions-out",
  value: "<file>",
  help: "SWE: write the agents' patches as a SWE-bench predictions file (JSONL)",
  schema: FILE,
  parse: absolute,
  default: null,
  identity: false,
  verbs: ["run"],
});

/** The SWE family's settings, in the order the verbs list their options. */
export const SWE_SETTINGS: readonly FamilySetting[] = [PREDICTIONS, PREDICTIONS_OUT, HINTS, ENV_SPEC, ENV_SETUP, EXTRACT_WITH, TEST_TIMEOUT, SETUP_TIMEOUT];
