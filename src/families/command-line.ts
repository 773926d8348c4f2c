import type { Command } from "commander";
import { GitGoodError } from "../errors.js";
import { COMMIT0_COMMAND_LINE } from "./commit0/command-line.js";
import { GITGOODBENCH_COMMAND_LINE } from "./gitgoodbench/command-line.js";
import { SWE_COMMAND_LINE } from "./swe/command-line.js";

/**
 * What a family shows on the command line before anything of it is loaded: the words `gitgood --help`
 * uses for it, the verbs it adds, and its modes of `gitgood mine`. The CLI lists the verbs and modes from
 * here and imports a verb's module only when it is called (a family's verb is its own file, in its
 * folder), so this module and the families' `command-line.ts` files import nothing heavy.
 */

/** Where a family's command writes (the CLI's streams, or a test's buffers). */
export interface CommandIO {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
}

/** A verb a family adds (`gitgood skeleton`): as the verb table lists it, and its command, loaded when called. */
export interface FamilyVerb {
  name: string;
  /** Commander's term for the command (`skeleton [options] <repo>`), as `gitgood --help` lists it. */
  term: string;
  /** The command's one-line description. */
  summary: string;
  load(): Promise<(io: CommandIO) => Command>;
}

/** What `gitgood mine --type TYPE` does for a family: the options only it reads, and the mining. */
export interface MineMode {
  /** Adds the options only this mode reads. */
  options(cmd: Command): Command;
  /**
   * Mines `repoPath` with the parsed flags of `gitgood mine` (`languages` undefined when not given, so
   * the mode picks its own default).
   */
  run(repoPath: string, flags: Record<string, unknown>, io: CommandIO): Promise<void>;
}

/** A mode of `gitgood mine` a family adds (`--type swe`). */
export interface FamilyMineType {
  /** The `--type` value. */
  type: string;
  /** What it mines, in the words of `gitgood mine`'s description ("validated SWE-bench instances"). */
  what: string;
  load(): Promise<MineMode>;
}

/** One family's part of the command line. */
export interface FamilyCommandLine {
  /** The family as `gitgood --help`'s first line names it ("SWE-style tasks"). */
  readonly title: string;
  readonly verbs?: readonly FamilyVerb[];
  readonly mineTypes?: readonly FamilyMineType[];
}

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
