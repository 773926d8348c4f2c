import type { Command } from "commander";
import type { FamilyVerb } from "../families/definition.js";
import { families } from "../families/registry.js";
import { commanderOption } from "./declared-options.js";

/** Adds every family's options of a verb (in registry order; an option two families share is added once). */
export function addFamilyOptions(cmd: Command, verb: FamilyVerb): Command {
  const added = new Set(cmd.options.map((o) => o.long));
  for (const family of families()) {
    for (const declared of family.cli?.options(verb) ?? []) {
      const option = commanderOption(declared);
      if (added.has(option.long)) continue;
      added.add(option.long);
      cmd.addOption(option);
    }
  }
  return cmd;
}
