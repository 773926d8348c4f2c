import type { Command } from "commander";
import type { FamilyVerb } from "../families/definition.js";
import { familySettings } from "../runs/spec.js";
import { specOption } from "./spec-options.js";

/** Adds the option of every family setting a verb takes (the families in registry order, each's settings in its order). */
export function addFamilyOptions(cmd: Command, verb: FamilyVerb): Command {
  for (const s of familySettings()) if (s.verbs.includes(verb)) cmd.addOption(specOption(s));
  return cmd;
}
