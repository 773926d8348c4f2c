import { existsSync } from "node:fs";
import { z } from "zod";
import { GitGoodError } from "../../errors.js";
import { lookupModel } from "../../model/lookup.js";
import type { ResultRecord } from "../../runs/record.js";
import { SWE } from "../../scenarios/swe/index.js";
import { DEFAULT_SETUP_TIMEOUT, DEFAULT_TEST_TIMEOUT, type SweOptions } from "../../swe/options.js";
import { predictionsJsonl, readPredictions, type Prediction } from "../../swe/predictions.js";
import { writeOutputFile } from "../../util/output.js";
import type { CommandOption } from "../command-line-types.js";
import type { FamilyCli, FamilyVerb, SettingsContext } from "../definition.js";
import { positiveIntOption as positiveInt } from "../../util/options.js";

/** The SWE flags of `run`, `env` and `mcp` (`--predictions` and `--predictions-out`: `run` only). */
const SweFlagsSchema = z.object({
  hints: z.boolean().default(false),
  envSpec: z.string().optional(),
  envSetup: z.enum(["default", "llm"]).optional(),
  extractWith: z.string().optional(),
  testTimeout: z.number().int().min(1).default(DEFAULT_TEST_TIMEOUT),
  setupTimeout: z.number().int().min(1).default(DEFAULT_SETUP_TIMEOUT),
  predictions: z.string().optional(),
  predictionsOut: z.string().optional(),
});
type SweFlags = z.infer<typeof SweFlagsSchema>;

const ENV_SPEC_OPTION: CommandOption = { flags: "--env-spec <file>", help: "SWE: environment specs (YAML) per repository and version, over the built-in defaults" };

const TIMEOUT_OPTIONS: readonly CommandOption[] = [
  { flags: "--test-timeout <seconds>", help: "SWE: time limit of one test run of an evaluation", parse: positiveInt("--test-timeout"), default: DEFAULT_TEST_TIMEOUT },
  { flags: "--setup-timeout <seconds>", help: "SWE: time limit for building one environment", parse: positiveInt("--setup-timeout"), default: DEFAULT_SETUP_TIMEOUT },
];

/** The options of the environments tests run in (`export harbor` takes these alone: its Dockerfile and its check use them). */
const ENVIRONMENT_OPTIONS: readonly CommandOption[] = [ENV_SPEC_OPTION, ...TIMEOUT_OPTIONS];

/** The options every verb that sets up SWE tasks takes. */
const SWE_OPTIONS: readonly CommandOption[] = [
  { flags: "--hints", help: "SWE: give the agent the instance's hints_text (SWE-bench's default is no hints)", default: false },
  ENV_SPEC_OPTION,
  { flags: "--env-setup <how>", help: "SWE: build environments from the spec (default), or by an LLM agent with --model (llm)", choices: ["default", "llm"] },
  { flags: "--extract-with <model>", help: "SWE: a model that turns an agent's free-text answer into a diff when it holds none" },
  ...TIMEOUT_OPTIONS,
];

/** `run`'s options for SWE-bench predictions files. */
const PREDICTION_OPTIONS: readonly CommandOption[] = [
  { flags: "--predictions <file>", help: "SWE: evaluate the patches of a SWE-bench predictions file (JSONL or JSON) instead of running an agent" },
  { flags: "--predictions-out <file>", help: "SWE: write the agents' patches as a SWE-bench predictions file (JSONL)" },
];

/**
 * The SWE options the flags ask for, as scenario settings (`settings.swe`); `envs` are the configuration
 * file's environment specs, consulted for instances that `--env-spec FILE` has no spec for.
 */
function sweSettings(flags: SweFlags, ctx: SettingsContext): { swe: SweOptions } {
  if (flags.envSpec !== undefined && !existsSync(flags.envSpec)) throw new GitGoodError("BAD_OPTION", `--env-spec ${flags.envSpec}: no such file`);
  if (flags.envSetup === "llm" && !ctx.model) throw new GitGoodError("BAD_OPTION", "--env-setup llm needs --model (the model that sets environments up)");
  return {
    swe: {
      hints: flags.hints,
      envSpecFile: flags.envSpec,
      envSpecs: ctx.envs,
      envModel: flags.envSetup === "llm" && ctx.model ? lookupModel(ctx.model) : null,
      extractWith: flags.extractWith ? lookupModel(flags.extractWith) : null,
      testTimeoutSeconds: flags.testTimeout,
      setupTimeoutSeconds: flags.setupTimeout,
      isolation: ctx.isolation,
    },
  };
}

/** The patches of a run's SWE records as predictions (the agent's name as model_name_or_path), by instance id. */
function recordPredictions(records: readonly ResultRecord[]): Prediction[] {
  return records
    .filter((r) => r.scenario === SWE.name)
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => {
      const swe = r.scores.swe as { patch?: unknown } | undefined;
      return { instance_id: r.sample_id, model_name_or_path: r.agent, model_patch: typeof swe?.patch === "string" ? swe.patch : "" };
    });
}

/** `--predictions-out FILE`: writes the agents' patches as a SWE-bench predictions JSONL file. */
function writePredictionsOut(file: string, records: readonly ResultRecord[]): number {
  const predictions = recordPredictions(records);
  writeOutputFile(file, predictionsJsonl(predictions));
  return predictions.length;
}

/** The SWE family's command line: environment and evaluation flags, and SWE-bench predictions files in and out. */
export const SWE_CLI: FamilyCli<SweFlags> = {
  flags: SweFlagsSchema,
  options: (verb: FamilyVerb) => (verb === "run" ? [...PREDICTION_OPTIONS, ...SWE_OPTIONS] : verb === "harbor" ? ENVIRONMENT_OPTIONS : SWE_OPTIONS),
  settings: (flags, _verb, ctx) => sweSettings(flags, ctx),
  identity: (flags, resolve) =>
    flags.hints || flags.predictions !== undefined ? { hints: flags.hints, predictions: flags.predictions === undefined ? null : resolve(flags.predictions) } : undefined,
  prepare(flags, samples, agent, io) {
    if (flags.predictions === undefined) return { samples };
    const predictions = readPredictions(flags.predictions);
    if (!["baseline", "predictions"].includes(agent)) {
      throw new GitGoodError("BAD_OPTION", `--predictions evaluates the file's patches: it runs no agent, so leave out --agent ${agent}`);
    }
    const predicted = samples.filter((s) => s.sample_type === "swe" && predictions.has(s.scenario.instance_id));
    if (predicted.length < samples.length) io.stderr.write(`${samples.length - predicted.length} sample(s) without a prediction skipped\n`);
    return { samples: predicted, agent: "predictions", agentOptions: { predictions: [...predictions.values()] } };
  },
  finish(flags, records, io) {
    if (flags.predictionsOut === undefined) return;
    const n = writePredictionsOut(flags.predictionsOut, records);
    io.stderr.write(`wrote ${n} prediction(s) to ${flags.predictionsOut}\n`);
  },
};
