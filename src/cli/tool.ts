import { Command } from "commander";
import { TOOL_SOCKET_ENV } from "../agents/tool-socket.js";
import { SANDBOX_ENV } from "../sandbox/locate.js";
import type { CliIO } from "./io.js";
import { TOOL_DEFAULTS, TOOL_OPTIONS, toolCall, type ToolFlags, type ToolOption } from "./tool-call.js";

const OPTION_HELP: Record<ToolOption, string> = {
  args: "the tool's arguments as a JSON object; '-' reads standard input, '@file' a file",
  sandbox: `the scenario's sandbox (default: $${SANDBOX_ENV}, or the only live one; inside a run: $${TOOL_SOCKET_ENV})`,
  list: "list the tools with their parameters",
  json: "print the result as JSON",
};

/**
 * `gitgood tool` for commander: its help, and the calls the quick parser of tool-call.ts leaves to it
 * (odd forms and mistakes, which commander words). The options come from the same table.
 */
export function toolCommand(io: CliIO): Command {
  const cmd = new Command("tool")
    .description("call one tool of the live scenario (see 'gitgood env'); without NAME, list the tools")
    .argument("[name]", "tool name, e.g. view_current_merge_conflict_with");
  for (const [key, opt] of Object.entries(TOOL_OPTIONS) as [ToolOption, (typeof TOOL_OPTIONS)[ToolOption]][]) {
    const fallback = TOOL_DEFAULTS[key];
    if (fallback === undefined) cmd.option(opt.flag, OPTION_HELP[key]);
    else cmd.option(opt.flag, OPTION_HELP[key], fallback);
  }
  return cmd.action(async (name: string | undefined, flags: ToolFlags) => {
    await toolCall(name, flags, io);
  });
}
