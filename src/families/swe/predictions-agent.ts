import type { AnyScenarioDefinition } from "../../scenarios/definition.js";
import { SWE } from "../../scenarios/swe/index.js";
import { predictionsFrom, type Prediction } from "../../swe/predictions.js";
import { GitGoodError } from "../../errors.js";
import type { Agent, Session } from "../../agents/agent.js";
import type { AgentKind } from "../../agents/index.js";

/**
 * Evaluates SWE-bench predictions without running a model: for each SWE instance it hands the
 * predicted patch in as the attempt's answer (`finish` with the patch as text), so the `swe` scorer
 * evaluates exactly that patch. An instance without a prediction is answered with nothing (no_op).
 */
class PredictionsAgent implements Agent {
  readonly name: string;
  readonly workTree = "tools";

  constructor(private readonly predictions: ReadonlyMap<string, Prediction>) {
    const models = [...new Set([...predictions.values()].map((p) => p.model_name_or_path).filter((m) => m !== ""))];
    this.name = models.length === 1 ? `predictions:${models[0]}` : "predictions";
  }

  /** Predictions are patches for SWE instances: the SWE scenario only. */
  supports(scenario: AnyScenarioDefinition): boolean {
    return scenario === SWE;
  }

  /** Whether the file predicts this instance. */
  has(instanceId: string): boolean {
    return this.predictions.has(instanceId);
  }

  async run(session: Session): Promise<void> {
    session.beginTurn();
    if (session.isDone()) return;
    const sample = session.sample;
    const p = this.predictions.get(sample.sample_type === "swe" ? sample.scenario.instance_id : sample.id);
    const answer = p?.model_patch ?? "";
    await session.call("finish", { reason: "the prediction file's patch for this instance", ...(answer === "" ? {} : { answer }) });
  }
}

/**
 * `--agent predictions` (what `run --predictions FILE` runs): the file's predictions, given as
 * `predictions`, a JSON list, so that they travel to a queue's workers with the agent's spec.
 */
export const PREDICTIONS_AGENT_KIND: AgentKind = {
  name: "predictions",
  settings: [],
  create(opts) {
    if (opts.predictions === undefined) throw new GitGoodError("BAD_OPTION", "the predictions agent needs --predictions FILE");
    return new PredictionsAgent(predictionsFrom(opts.predictions, "the predictions agent's predictions"));
  },
};
