import { scenarioNames } from "../scenarios/registry.js";

/** The scenario names as CLI options spell them (any case is accepted). */
export function scenarioChoices(): string[] {
  return scenarioNames().map((n) => n.toLowerCase());
}
