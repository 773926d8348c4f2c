import { GitGoodError } from "../errors.js";
import { COMMIT0_COMMAND_LINE } from "./commit0/command-line.js";
import { GITGOODBENCH_COMMAND_LINE } from "./gitgoodbench/command-line.js";
import { SWE_COMMAND_LINE } from "./swe/command-line.js";
import type { FamilyCommandLine, FamilyMineType, FamilyVerb } from "./command-line-types.js";

/**
 * What a family shows on the command line before anything of it is loaded: the words `gitgood --help`
 * uses for it, the verbs it adds, and its modes of `gitgood mine`. The CLI lists the verbs and modes from
 * here and imports a verb's module only when it is called (a family's verb is its own file, in its
 * folder), so this module and the families' `command-line.ts` files import nothing heavy.
 */

/** Every family's part of the command line, in the family registry's order (one line per family). */
const COMMAND_LINES: FamilyCommandLine[] = [GITGOODBENCH_COMMAND_LINE, SWE_COMMAND_LINE, COMMIT0_COMMAND_LINE];

/** Adds a family's part of the command line at run time (`registerFamily` calls it); its names must be new. */
export function registerCommandLine(line: FamilyCommandLine): void {
  const names = new Set(familyVerbs().map((v) => v.name));
  const types = new Set(familyMineTypes().map((t) => t.type));
  const clash = [...(line.verbs ?? []).filter((v) => names.has(v.name)).map((v) => v.name), ...(line.mineTypes ?? []).filter((t) => types.has(t.type)).map((t) => t.type)];
  if (clash.length > 0) throw new GitGoodError("INTERNAL", `a family adds ${clash.join(", ")} to the command line, which another family added already`);
  COMMAND_LINES.push(line);
}

/** Removes a family's part of the command line added with `registerCommandLine`. */
export function unregisterCommandLine(line: FamilyCommandLine): void {
  const i = COMMAND_LINES.indexOf(line);
  if (i >= 0) COMMAND_LINES.splice(i, 1);
}

/** The families' titles, in order. */
export function familyTitles(): string[] {
  return COMMAND_LINES.map((l) => l.title);
}

/** The verbs the families add, in order. */
export function familyVerbs(): FamilyVerb[] {
  return COMMAND_LINES.flatMap((l) => l.verbs ?? []);
}

/** The modes of `gitgood mine` the families add, in order. */
export function familyMineTypes(): FamilyMineType[] {
  return COMMAND_LINES.flatMap((l) => l.mineTypes ?? []);
}
