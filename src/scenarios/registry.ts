import type { Sample } from "../dataset/sample.js";
import { GitGoodError } from "../errors.js";
import type { AnyScenarioDefinition } from "./definition.js";
import { ICC } from "./icc/index.js";
import { IR } from "./ir/index.js";
import { MCR } from "./mcr/index.js";
import { SWE } from "./swe/index.js";
import { COMMIT0 } from "./commit0/index.js";

/**
 * Every scenario gitgood knows, in the order reports list them (the paper's: IR, ICC, MCR; then SWE, COMMIT0). A new
 * scenario is one folder and one line here (or one `registerScenario` call from outside the package).
 */
const DEFINITIONS: AnyScenarioDefinition[] = [IR, ICC, MCR, SWE, COMMIT0];

/** Adds a scenario at run time (a plug-in, a test's toy scenario). Its name must be new. */
export function registerScenario(definition: AnyScenarioDefinition): void {
  if (DEFINITIONS.some((d) => d.name.toLowerCase() === definition.name.toLowerCase())) {
    throw new GitGoodError("INTERNAL", `a scenario named ${definition.name} is registered already`);
  }
  DEFINITIONS.push(definition);
}

/** Removes a scenario added with `registerScenario` (tests clean up after themselves). */
export function unregisterScenario(name: string): void {
  const i = DEFINITIONS.findIndex((d) => d.name === name);
  if (i >= 0) DEFINITIONS.splice(i, 1);
}

/** The registered scenarios, in report order. */
export function scenarios(): readonly AnyScenarioDefinition[] {
  return DEFINITIONS;
}

/** The scenario names, in report order. */
export function scenarioNames(): string[] {
  return DEFINITIONS.map((d) => d.name);
}

/** The scenario of a name (any case), or a one-line error listing the names. */
export function scenarioNamed(name: string): AnyScenarioDefinition {
  const found = DEFINITIONS.find((d) => d.name.toLowerCase() === name.trim().toLowerCase());
  if (!found) {
    throw new GitGoodError("BAD_OPTION", `unknown scenario '${name}'; the scenarios are ${scenarioNames().join(", ")}`);
  }
  return found;
}

/** The scenarios a sample gives (MCR for a merge, IR and ICC for a chain), in report order. */
export function scenariosFor(sample: Sample): AnyScenarioDefinition[] {
  return DEFINITIONS.filter((d) => d.accepts(sample));
}

/** The family of a scenario name (its `family`, else the name itself; an unregistered name is its own). */
export function scenarioFamily(name: string): string {
  return DEFINITIONS.find((d) => d.name === name)?.family ?? name;
}

/** Position of a scenario name in report order (unknown names last), for sorting. */
export function reportRank(name: string): number {
  const i = DEFINITIONS.findIndex((d) => d.name === name);
  return i === -1 ? DEFINITIONS.length : i;
}

/** The scenario names of a list, as the registry spells them, in report order (unknown names are a one-line error). */
export function scenarioSet(names: readonly string[]): string[] {
  const canonical = new Set(names.map((n) => scenarioNamed(n).name));
  return [...canonical].sort((a, b) => reportRank(a) - reportRank(b));
}
