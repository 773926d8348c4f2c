import { registerAgentKind, unregisterAgentKind } from "../agents/index.js";
import { registerImporter, unregisterImporter } from "../dataset/importer.js";
import { registerSampleType, unregisterSampleType } from "../dataset/sample.js";
import { GitGoodError } from "../errors.js";
import { registerScenario, scenarios, unregisterScenario } from "../scenarios/registry.js";
import { declareFamilySettings, undeclareFamilySettings } from "../runs/spec.js";
import { registerCommandLine, unregisterCommandLine } from "./command-line.js";
import type { FamilyDefinition, FamilyRelease, ReportSection } from "./definition.js";
import { COMMIT0_FAMILY } from "./commit0/index.js";
import { GITGOODBENCH_FAMILY } from "./gitgoodbench/index.js";
import { SWE_FAMILY } from "./swe/index.js";

/**
 * Every family gitgood knows, in report order. A new family is one folder under src/families/ and one
 * line here (its scenarios are also one line of the scenario registry, which the layers below read).
 */
const FAMILIES: FamilyDefinition[] = [GITGOODBENCH_FAMILY, SWE_FAMILY, COMMIT0_FAMILY];

/** What a family adds to the registries of the layers below (its agents, sample types and readers). */
function plugIn(family: FamilyDefinition): void {
  for (const kind of family.agents ?? []) registerAgentKind(kind);
  for (const type of family.samples ?? []) registerSampleType(type);
  for (const importer of family.importers ?? []) registerImporter(importer);
}

/** Declares a family's settings, under its key in the run spec (its name in lower case), when it has any. */
function declareSettings(family: FamilyDefinition): void {
  const settings = family.cli?.settings ?? [];
  if (settings.length > 0) declareFamilySettings(family.name.toLowerCase(), settings);
}

for (const family of FAMILIES) {
  const missing = family.scenarios.filter((s) => !scenarios().includes(s));
  if (missing.length > 0) throw new GitGoodError("INTERNAL", `the ${family.name} family's scenarios are not in the scenario registry: ${missing.map((s) => s.name).join(", ")}`);
  declareSettings(family);
  plugIn(family);
}

/**
 * Adds a family at run time (a plug-in, a test's toy family): its settings, scenarios, agents, sample
 * types and readers and its part of the command line are registered with it. Its name, and every name
 * it brings, must be new.
 */
export function registerFamily(family: FamilyDefinition): void {
  if (FAMILIES.some((f) => f.name.toLowerCase() === family.name.toLowerCase())) {
    throw new GitGoodError("INTERNAL", `a family named ${family.name} is registered already`);
  }
  try {
    declareSettings(family);
  } catch (err) {
    throw new GitGoodError("INTERNAL", `the ${family.name} family's settings: ${(err as Error).message}`);
  }
  if (family.commandLine) registerCommandLine(family.commandLine);
  for (const scenario of family.scenarios) registerScenario(scenario);
  plugIn(family);
  FAMILIES.push(family);
}

/** Removes a family added with `registerFamily`, and everything it registered. */
export function unregisterFamily(name: string): void {
  const i = FAMILIES.findIndex((f) => f.name === name);
  const family = FAMILIES[i];
  if (!family) return;
  for (const scenario of family.scenarios) unregisterScenario(scenario.name);
  for (const kind of family.agents ?? []) unregisterAgentKind(kind.name);
  for (const type of family.samples ?? []) unregisterSampleType(type.type);
  for (const importer of family.importers ?? []) unregisterImporter(importer.name);
  if (family.commandLine) unregisterCommandLine(family.commandLine);
  undeclareFamilySettings(family.name.toLowerCase());
  FAMILIES.splice(i, 1);
}

/** The registered families, in report order. */
export function families(): readonly FamilyDefinition[] {
  return FAMILIES;
}

/** The release parts of the registered families (those whose tasks `gitgood live build` can mine), in report order. */
export function releaseFamilies(): readonly FamilyRelease[] {
  return FAMILIES.flatMap((f) => (f.release ? [f.release] : []));
}

/** The family a scenario belongs to (by the scenario's registry name), if it is registered. */
export function familyOfScenario(name: string): FamilyDefinition | undefined {
  return FAMILIES.find((f) => f.scenarios.some((s) => s.name === name));
}

/** The report sections of the families, in registry order. */
export function reportSections(): ReportSection[] {
  return FAMILIES.flatMap((f) => (f.report ? [f.report] : []));
}
