import type { Command } from "commander";
import { createRequire } from "node:module";
import { exitCodeFor, isGitGoodError, type ErrorCode } from "../errors.js";
import { escapeControls } from "../util/escape.js";
import { HELP_WIDTH, readHelpTable } from "./built-help.js";
import type { CliIO } from "./io.js";
import { verbs } from "./verbs.js";
import { familyTitles } from "../families/command-line.js";
import { provideVerbs } from "./verb-source.js";
import { PLUGIN_OPTION, loadRequestedPlugins, splitPluginArgs } from "./plugin-args.js";
import { at } from "../util/at.js";

/** `gitgood --help`'s first line: what gitgood does, and the families it does it for. */
function description(): string {
  const titles = familyTitles();
  const listed = titles.length > 1 ? `${titles.slice(0, -1).join(", ")} and ${titles.at(-1) ?? ""}` : titles.join("");
  return `Measure and improve how well AI agents handle Git: ${listed}`;
}

/** Every command of the tree writes to `io`, and throws instead of ending the process. */
function configureTree(cmd: Command, io: CliIO): void {
  cmd.exitOverride().configureOutput({
    writeOut: (s) => io.stdout.write(s),
    writeErr: (s) => io.stderr.write(s),
    getOutHelpWidth: () => helpWidth(io),
    getErrHelpWidth: () => (io.stderr.isTTY ? io.stderr.columns : undefined) ?? HELP_WIDTH,
  });
  for (const sub of cmd.commands) configureTree(sub, io);
}

function helpWidth(io: CliIO): number {
  return (io.stdout.isTTY ? io.stdout.columns : undefined) ?? HELP_WIDTH;
}

/**
 * The program for a call whose first argument is `verb`: with that verb alone when it names one,
 * else (help, a typo, nothing) with every verb listed from the static table in verbs.ts, none of
 * them loaded, so help lists them all and a typo gets suggestions.
 */
export async function buildProgram(io: CliIO, verb?: string): Promise<Command> {
  const { Command, Help } = await import("commander");
  const version = (createRequire(import.meta.url)("../../package.json") as { version: string }).version;
  const program = new Command("gitgood")
    .description(description())
    .version(version)
    .option(`${PLUGIN_OPTION} <module>`, "load a plug-in first: a path from the working directory or an installed package (may be repeated; see docs/plugins.md)")
    .showHelpAfterError("(run 'gitgood --help' for usage)")
    .hook("preAction", async () => {
      const { gitVersion } = await import("../git/version.js");
      await gitVersion();
    });
  provideVerbs(program, async (name) => {
    const entry = verbs().find((v) => v.name === name);
    return entry ? (await entry.load())(io) : undefined;
  });
  const named = verbs().find((v) => v.name === verb);
  if (named) {
    program.addCommand((await named.load())(io));
  } else {
    const terms = new Map(verbs().map((v) => [v.name, v.term]));
    for (const v of verbs()) program.addCommand(new Command(v.name).description(v.summary));
    // Commander's own help command keeps its term ("help [command]").
    const help = new Help();
    program.configureHelp({ subcommandTerm: (cmd) => terms.get(cmd.name()) ?? help.subcommandTerm(cmd) });
  }
  configureTree(program, io);
  return program;
}

/**
 * The help `args` ask for alone (`--help`, `VERB --help`, `-h` for either), where the built table holds
 * it as it would be printed here: null otherwise.
 */
function tableHelp(args: readonly string[], io: CliIO): string | null {
  if (helpWidth(io) !== HELP_WIDTH) return null;
  const isHelp = (flag: string | undefined) => flag === "--help" || flag === "-h";
  let key: string | null = null;
  if (args.length === 1 && isHelp(args[0])) key = "";
  else if (args.length === 2 && isHelp(args[1]) && verbs().some((v) => v.name === args[0])) key = at(args, 0);
  return key === null ? null : (readHelpTable()?.[key] ?? null);
}

/** Commander's own errors (usage, help, version), known without importing it. */
function isCommanderError(err: unknown): boolean {
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  return typeof code === "string" && code.startsWith("commander.");
}

/** Exit codes of their own, beyond the faults' (0, 1, 2): a run whose solve rate is below --fail-under. */
const EXIT_CODES: Partial<Record<ErrorCode, number>> = { FAIL_UNDER: 3 };

/**
 * Runs the CLI on `args` (the arguments after `gitgood`); returns the exit code: 0, 2 for wrong usage,
 * 3 for a run below its --fail-under solve rate, 1 for any other error (a run with attempts that ended
 * in a system error among them). Errors become one line on stderr, never a stack trace.
 */
export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    // A command agent's tool call (`gitgood tool`, run in its jail from a directory it writes) loads no plug-in.
    const { args: given, plugins } = argv[0] === "tool" ? { args: [...argv], plugins: [] } : splitPluginArgs(argv);
    const extended = argv[0] !== "tool" && (await loadRequestedPlugins(given, plugins));
    // `help VERB` is `VERB --help`: the listing's placeholders for the verbs have no options to show.
    const args = given.length === 2 && given[0] === "help" && verbs().some((v) => v.name === given[1]) ? [at(given, 1), "--help"] : given;
    // The built help table knows the built-in registries only.
    const help = extended ? null : tableHelp(args, io);
    if (help !== null) {
      io.stdout.write(help);
      return 0;
    }
    if (args[0] === "tool") {
      // A command agent's tool call, parsed without commander; commander takes whatever else comes.
      const { parseToolCall, toolCall } = await import("./tool-call.js");
      const call = parseToolCall(args.slice(1));
      if (call) {
        await toolCall(call.name, call.flags, io);
        return 0;
      }
    }
    const program = await buildProgram(io, args[0]);
    await program.parseAsync([...args], { from: "user" });
    return 0;
  } catch (err) {
    // Commander has printed its own message (or the help or version asked for).
    if (isCommanderError(err)) return exitCodeFor(err);
    if (isGitGoodError(err)) {
      io.stderr.write(`gitgood: ${escapeControls(err.message)}\n`);
    } else {
      io.stderr.write(`gitgood: unexpected error: ${escapeControls(err instanceof Error ? err.message : String(err))}\n`);
      if (process.env.GITGOOD_DEBUG && err instanceof Error) io.stderr.write(`${err.stack ?? ""}\n`);
    }
    return (isGitGoodError(err) ? EXIT_CODES[err.code] : undefined) ?? exitCodeFor(err);
  }
}
