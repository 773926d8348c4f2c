export * from "./spec-registry.js";
// gitgood's own settings, each file declaring its group; the order of these lines is the order of the
// settings in the CLI's options, the reference and the spec's schema.
export * from "./spec-limits.js";
export * from "./spec-attempts.js";
export * from "./spec-sandbox.js";
export * from "./spec-selection.js";
export * from "./spec-models.js";
export * from "./spec-isolation.js";
export * from "./spec-agent.js";

/*
 * A run's spec: the registry of run settings (spec-registry.ts) with gitgood's own settings declared in
 * it. Import the registry and the settings from here, so that the built-in settings are always declared
 * before anything reads them. One declaration reaches the CLI, the configuration file, run.json's spec,
 * queue tickets and the A2A request schema. The limits (of the jail, of spend: spec-limits.ts), the
 * attempts' choices (timeout, turn budget, repeats, the memory variant, the shard, what trajectories keep of
 * model requests: spec-attempts.ts), what each sandbox gets (history, the MCR tools: spec-sandbox.ts), the
 * selection of samples and scenarios (spec-selection.ts), the judges, how models are asked and the agent's
 * prices (spec-models.ts), the isolation asked for (spec-isolation.ts) and the agent's own settings (its
 * command, A2A URL, preset version and tools: spec-agent.ts) are declared this way. The agent and its model
 * name the run: they travel beside the spec (RunFlags → RunConfigInput's `agent` and `model` → run.json's
 * identity, the ticket's `agent`).
 */
