/**
 * The shapes of a family's part of the command line: what a family's `command-line.ts` and its verbs'
 * files declare, and what the command-line registry (`command-line.ts`) collects. They live apart from
 * the registry so that a family's files need not import the registry that imports them. Everything here
 * is data: the CLI (src/cli/) turns it into commander's commands and options, and only it imports
 * commander.
 */

/** One option of a command, as data. */
export interface CommandOption {
  /** The option as `--help` shows it: `--test-timeout <seconds>`, `-o, --output <file>`, `--hints` (a switch). */
  readonly flags: string;
  /** One line of help. */
  readonly help: string;
  /** Reads the option's text into its value (a bad text throws `BAD_OPTION` naming the option). */
  readonly parse?: (text: string) => unknown;
  /** The value when the option is not given. */
  readonly default?: unknown;
  /** How `--help` shows the default, when not as the value itself. */
  readonly defaultLabel?: string;
  /** The only values it takes. */
  readonly choices?: readonly string[];
  /** The command refuses to run without it. */
  readonly required?: boolean;
}

/** One argument of a command: `<repo>` (required), `[file]` (optional), `<files...>` (one or more). */
export interface CommandArgument {
  readonly name: string;
  readonly help: string;
}

/** A command a family adds, as data: its words, and what it does with the parsed arguments and flags. */
export interface CommandDefinition {
  readonly name: string;
  readonly description: string;
  readonly arguments: readonly CommandArgument[];
  readonly options: readonly CommandOption[];
  /** Runs the command: `args` in the order of `arguments`, `flags` by the options' camelCase names. */
  run(args: readonly unknown[], flags: Record<string, unknown>, io: CommandIO): Promise<void> | void;
}

/** Where a family's command writes (the CLI's streams, or a test's buffers). */
export interface CommandIO {
  stdout: {
    /** Writes the command's output (no newline is added). */
    write(text: string): unknown;
  };
  stderr: {
    /** Writes progress and warnings (no newline is added). */
    write(text: string): unknown;
    isTTY?: boolean;
    columns?: number;
  };
}

/** A verb a family adds (`gitgood skeleton`): as the verb table lists it, and its command, loaded when called. */
export interface FamilyVerb {
  name: string;
  /** Commander's term for the command (`skeleton [options] <repo>`), as `gitgood --help` lists it. */
  term: string;
  /** The command's one-line description. */
  summary: string;
  /** Imports the command's module, only when the verb is called, so the others start without it. */
  load(): Promise<CommandDefinition>;
}

/** What `gitgood mine --type TYPE` does for a family: the options only it reads, and the mining. */
export interface MineMode {
  /** The options only this mode reads. */
  readonly options: readonly CommandOption[];
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
  /** Imports the mode's module, only when `gitgood mine --type` names it. */
  load(): Promise<MineMode>;
}

/** One family's part of the command line. */
export interface FamilyCommandLine {
  /** The family as `gitgood --help`'s first line names it ("SWE-style tasks"). */
  readonly title: string;
  readonly verbs?: readonly FamilyVerb[];
  readonly mineTypes?: readonly FamilyMineType[];
}
