import { Command, Option } from "commander";
import type { CommandDefinition, CommandOption } from "../families/command-line-types.js";
import type { CliIO } from "./io.js";

/*
 * The families' parts of the command line are data (families/command-line-types.ts): their verbs, the
 * modes of `gitgood mine`, the options of `run`, `env`, `mcp`, `export harbor` and of their report
 * formats. Here they become commander's commands and options.
 */

/** A commander option from a declared one. */
export function commanderOption(declared: CommandOption): Option {
  const option = new Option(declared.flags, declared.help);
  const parse = declared.parse;
  if (parse) option.argParser((text: string) => parse(text));
  if (declared.choices) option.choices(declared.choices);
  if (declared.default !== undefined) option.default(declared.default, declared.defaultLabel);
  if (declared.required) option.makeOptionMandatory();
  return option;
}

/** Adds declared options to a command. */
export function addOptions(cmd: Command, options: readonly CommandOption[]): Command {
  for (const o of options) cmd.addOption(commanderOption(o));
  return cmd;
}

/** A family's verb as a commander command writing to `io`. */
export function familyCommand(definition: CommandDefinition, io: CliIO): Command {
  const cmd = new Command(definition.name).description(definition.description);
  for (const a of definition.arguments) cmd.argument(a.name, a.help);
  return addOptions(cmd, definition.options).action(async (...args: unknown[]) => {
    // commander passes the arguments, then the flags, then the command.
    const values = args.slice(0, definition.arguments.length);
    const flags = args[definition.arguments.length] as Record<string, unknown>;
    await definition.run(values, flags, io);
  });
}
