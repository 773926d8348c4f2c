import { GitGoodError } from "../errors.js";
import type { Sample } from "../dataset/sample.js";
import { Repo } from "../git/repo.js";
import { Sandbox } from "../sandbox/sandbox.js";
import type { AnyScenarioDefinition, ScenarioSetupOptions } from "./definition.js";
import { scenarioNamed, scenariosFor } from "./registry.js";
import { readSaved } from "./shared/base.js";
import type { LiveScenario } from "./types.js";

export type { InitialContext, LiveScenario, ScenarioToolResult } from "./types.js";
export type { AnyScenarioDefinition, ScenarioDefinition, ScenarioSession, ScenarioSetupOptions, Strategy } from "./definition.js";
export { registerScenario, reportRank, scenarioNamed, scenarioNames, scenarios, scenariosFor } from "./registry.js";

/** How `setupScenario` makes the sandbox, and which of the sample's scenarios it sets up. */
export interface SetupOptions extends ScenarioSetupOptions {
  /** Which of the sample's scenarios (a name or a definition); required when the sample gives several. */
  scenario?: string | AnyScenarioDefinition;
}

/** The one scenario of `sample` that `which` names (or its only one), with a one-line error otherwise. */
export function chooseScenario(sample: Sample, which?: string | AnyScenarioDefinition): AnyScenarioDefinition {
  const offered = scenariosFor(sample);
  const names = offered.map((d) => d.name).join(", ");
  if (which === undefined) {
    const only = offered.length === 1 ? offered[0] : undefined;
    if (only) return only;
    if (offered.length === 0) throw new GitGoodError("BAD_SAMPLE", `sample ${sample.id} (${sample.sample_type}) gives no scenario`);
    throw new GitGoodError("BAD_OPTION", `sample ${sample.id} gives several scenarios: choose one of ${names}`);
  }
  const def = typeof which === "string" ? scenarioNamed(which) : which;
  if (!offered.includes(def)) {
    throw new GitGoodError("BAD_OPTION", `sample ${sample.id} (${sample.sample_type}) has no ${def.name} scenario; it has ${names}`);
  }
  return def;
}

/** Sets up one scenario of `sample` in a new sandbox made from the repository at `repoPath`. */
export async function setupScenario(sample: Sample, repoPath: string | Repo, opts: SetupOptions = {}): Promise<LiveScenario> {
  const def = chooseScenario(sample, opts.scenario);
  const repo = typeof repoPath === "string" ? await Repo.open(repoPath) : repoPath;
  const { scenario: _which, ...setup } = opts;
  return def.setup(sample, repo, setup) as Promise<LiveScenario>;
}

/** Re-opens the live scenario of a sandbox (made by this or another process). */
export async function openScenario(dir: string): Promise<LiveScenario> {
  const sandbox = await Sandbox.open(dir);
  const saved = readSaved(sandbox);
  const def = scenarioNamed(saved.scenario);
  const data = def.stateSchema.safeParse(saved.data);
  if (!data.success) throw new GitGoodError("BAD_STATE", `the ${def.name} state in ${sandbox.dir} is damaged`);
  return def.restore(sandbox, saved.sample, saved.source, data.data) as LiveScenario;
}

/**
 * Sets up a scenario, hands it to `work`, and removes the sandbox afterwards, whether `work`
 * returns or throws.
 */
export async function withScenario<T>(
  sample: Sample,
  repoPath: string | Repo,
  opts: Omit<SetupOptions, "keep">,
  work: (scenario: LiveScenario) => Promise<T>,
): Promise<T> {
  const scenario = await setupScenario(sample, repoPath, { ...opts, keep: false });
  try {
    return await work(scenario);
  } finally {
    scenario.close();
  }
}
