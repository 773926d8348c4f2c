import type { Command } from "commander";

/**
 * The shapes of a family's part of the command line: what a family's `command-line.ts` and its verbs'
 * files declare, and what the command-line registry (`command-line.ts`) collects. They live apart from
 * the registry so that a family's files need not import the registry that imports them.
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
