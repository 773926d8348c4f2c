import { existsSync } from "node:fs";
import { GitGoodError } from "../../errors.js";
import { lookupModel } from "../../model/lookup.js";
import type { ResultRecord } from "../../runs/record.js";
import { SWE } from "../../scenarios/swe/index.js";
import { specValue, type RunSpec } from "../../runs/spec.js";
import type { SweOptions } from "../../swe/options.js";
import { predictionsJsonl, readPredictions, type Prediction } from "../../swe/predictions.js";
import { writeOutputFile } from "../../util/output.js";
import type { FamilyCli, SettingsContext } from "../definition.js";
import { ENV_SETUP, ENV_SPEC, EXTRACT_WITH, HINTS, PREDICTIONS, PREDICTIONS_OUT, SETUP_TIMEOUT, SWE_SETTINGS, TEST_TIMEOUT } from "./settings.js";

/**
 * The SWE settings the spec asks for, as scenario settings (`settings.swe`), their live parts made here
 * (the models, the isolation); `envs` are the configuration file's environment specs, consulted for
 * instances that `--env-spec FILE` has no spec for.
 */
function sweSettings(spec: RunSpec, ctx: SettingsContext): { swe: SweOptions } {
  const envSpec = specValue(spec, ENV_SPEC);
  const envSetup = specValue(spec, ENV_SETUP);
  const extractWith = specValue(spec, EXTRACT_WITH);
  if (envSpec !== null && !existsSync(envSpec)) throw new GitGoodError("BAD_OPTION", `--env-spec ${envSpec}: no such file`);
  if (envSetup === "llm" && !ctx.model) throw new GitGoodError("BAD_OPTION", "--env-setup llm needs --model (the model that sets environments up)");
  return {
    swe: {
      hints: specValue(spec, HINTS),
      envSpecFile: envSpec ?? undefined,
      envSpecs: ctx.envs,
      envModel: envSetup === "llm" && ctx.model ? lookupModel(ctx.model) : null,
      extractWith: extractWith !== null ? lookupModel(extractWith) : null,
      testTimeoutSeconds: specValue(spec, TEST_TIMEOUT),
      setupTimeoutSeconds: specValue(spec, SETUP_TIMEOUT),
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

/** The SWE family's part of a run: environment and evaluation settings, and SWE-bench predictions files in and out. */
export const SWE_CLI: FamilyCli = {
  settings: SWE_SETTINGS,
  scenarioSettings: (spec, _verb, ctx) => sweSettings(spec, ctx),
  prepare(spec, samples, agent, io) {
    const file = specValue(spec, PREDICTIONS);
    if (file === null) return { samples };
    const predictions = readPredictions(file);
    if (!["baseline", "predictions"].includes(agent)) {
      throw new GitGoodError("BAD_OPTION", `--predictions evaluates the file's patches: it runs no agent, so leave out --agent ${agent}`);
    }
    const predicted = samples.filter((s) => s.sample_type === "swe" && predictions.has(s.scenario.instance_id));
    if (predicted.length < samples.length) io.stderr.write(`${samples.length - predicted.length} sample(s) without a prediction skipped\n`);
    return { samples: predicted, agent: "predictions", agentOptions: { predictions: [...predictions.values()] } };
  },
  finish(spec, records, io) {
    const file = specValue(spec, PREDICTIONS_OUT);
    if (file === null) return;
    const n = writePredictionsOut(file, records);
    io.stderr.write(`wrote ${n} prediction(s) to ${file}\n`);
  },
};
