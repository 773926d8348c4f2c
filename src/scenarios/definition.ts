import type { Sample } from "../dataset/sample.js";
import type { Repo } from "../git/repo.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { AnyScenarioDefinition, LiveScenario, ScenarioDefinition, ScenarioSetupOptions, Strategy } from "./types.js";

export type { AnyScenarioDefinition, SavedScenario, ScenarioDefinition, ScenarioSession, ScenarioSetupOptions, Strategy } from "./types.js";

/** A scenario's live class, as its statics make it: set up in a new sandbox, or re-opened from a saved one. */
export interface LiveClass<S extends Sample, L extends LiveScenario, D, O extends object> {
  /** Sets the scenario up for `sample` in a new sandbox, from the source repository. */
  setup(sample: S, source: Repo, opts: ScenarioSetupOptions & O, definition: AnyScenarioDefinition): Promise<L>;
  /** Re-opens a scenario set up earlier in `sandbox`, from its saved data. */
  restore(sandbox: Sandbox, sample: S, source: string, data: D, definition: AnyScenarioDefinition): L;
}

/** What `defineScenario` needs: a definition whose set-up and re-opening come from the live class. */
export type ScenarioSpec<S extends Sample, L extends LiveScenario, F, D, O extends object> = Omit<
  ScenarioDefinition<S, L, F, D>,
  "setup" | "restore" | "baselines" | "describeFinal"
> & {
  /** The live class (a thunk: the class and its definition import each other). */
  live(): LiveClass<S, L, D, O>;
  /** Reads the scenario's own settings (ICC's `scope`) into its set-up options; a wrong value throws BAD_OPTION. */
  settings?(settings: Record<string, unknown> | undefined): O;
  /** Default: none. */
  baselines?: readonly Strategy<L>[];
  /** Default: the final state as indented JSON. */
  describeFinal?(final: F): string;
};

/**
 * A scenario definition from its parts, with the preamble every scenario shares: set-up passes the
 * options (and the settings the scenario reads) to the live class's `setup`, re-opening goes to its
 * `restore`, no baselines unless given, and a final state described as JSON unless told how.
 */
export function defineScenario<S extends Sample, L extends LiveScenario, F, D, O extends object = Record<never, never>>(
  spec: ScenarioSpec<S, L, F, D, O>,
): ScenarioDefinition<S, L, F, D> {
  const { live, settings, baselines, describeFinal, ...rest } = spec;
  // The live scenario is given its definition, so that its class need not import the module defining it.
  const definition: ScenarioDefinition<S, L, F, D> = {
    ...rest,
    setup: (sample, source, opts) => live().setup(sample, source, { ...opts, ...(settings?.(opts.settings) ?? ({} as O)) }, definition),
    restore: (sandbox, sample, source, data) => live().restore(sandbox, sample, source, data, definition),
    baselines: baselines ?? [],
    describeFinal: describeFinal ?? ((final) => JSON.stringify(final, null, 2)),
  };
  return definition;
}
