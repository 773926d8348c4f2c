import type { AnyScenarioDefinition, Strategy } from "../scenarios/definition.js";
import { scenarios } from "../scenarios/registry.js";
import type { Agent, Session } from "./agent.js";

/** A scenario and the strategy a `StrategyAgent` plays on it. */
export type StrategyEntry = { scenario: AnyScenarioDefinition; strategy: Strategy };

/** A named baseline as an agent: it works the scenarios that define a baseline of that name. */
export class StrategyAgent implements Agent {
  readonly workTree = "tools";
  /** It asks no model: what its attempts spent is known to be nothing (0 tokens), not unknown. */
  readonly metered = true;

  constructor(
    readonly name: string,
    private readonly entries: readonly StrategyEntry[],
  ) {}

  supports(scenario: AnyScenarioDefinition): boolean {
    return this.entries.some((e) => e.scenario === scenario);
  }

  async run(session: Session): Promise<void> {
    const entry = this.entries.find((e) => e.scenario === session.definition);
    if (entry) await entry.strategy.run(session);
  }
}

/** The floor of every scenario as one agent: each scenario's first baseline (union, squash-fixups, per-file). */
export class BaselineAgent implements Agent {
  readonly name = "baseline";
  readonly workTree = "tools";
  /** It asks no model: what its attempts spent is known to be nothing (0 tokens), not unknown. */
  readonly metered = true;

  supports(scenario: AnyScenarioDefinition): boolean {
    return scenario.baselines.length > 0;
  }

  async run(session: Session): Promise<void> {
    const first = session.definition.baselines[0];
    if (first) await first.run(session);
  }
}

/** The baselines of every registered scenario, by name (a name two scenarios share works both). */
export function baselineStrategies(): Map<string, StrategyEntry[]> {
  const byName = new Map<string, StrategyEntry[]>();
  for (const scenario of scenarios()) {
    for (const strategy of scenario.baselines as readonly Strategy[]) {
      byName.set(strategy.name, [...(byName.get(strategy.name) ?? []), { scenario, strategy }]);
    }
  }
  return byName;
}
