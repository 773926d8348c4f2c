import { readFileSync } from "node:fs";
import { Command } from "commander";
import { GitGoodError, isErrorCode } from "../errors.js";
import { TOOL_SOCKET_ENV } from "../agents/external.js";
import { callBroker, describeBroker } from "../runs/broker-client.js";
import { SANDBOX_ENV, locateSandbox } from "../sandbox/locate.js";
import { openScenario, type ScenarioToolResult } from "../scenarios/index.js";
import { readAll, type CliIO } from "./io.js";

interface ToolFlags {
  args: string;
  sandbox?: string;
  json: boolean;
  list: boolean;
}

/** Reads `--args`: JSON text, `-` for standard input, or `@file`. */
async function readArgs(value: string, io: CliIO): Promise<unknown> {
  let text = value;
  if (value === "-") text = await readAll(io.stdin);
  else if (value.startsWith("@")) {
    try {
      text = readFileSync(value.slice(1), "utf8");
    } catch {
      throw new GitGoodError("BAD_OPTION", `cannot read the arguments file ${value.slice(1)}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new GitGoodError("BAD_OPTION", `--args is not valid JSON (${why})`);
  }
}

/** Prints a tool's result like the CLI does for every call; a failed call is the command's error. */
function printResult(result: ScenarioToolResult, flags: ToolFlags, io: CliIO, finishedHint: string): void {
  if (flags.json) io.stdout.write(`${JSON.stringify(result)}\n`);
  else if (result.ok) io.stdout.write(`${result.output}\n`);
  if (!result.ok) {
    // A failed result carries a declared code; anything else is a bug.
    const code = result.error && isErrorCode(result.error.code) ? result.error.code : "INTERNAL";
    throw new GitGoodError(code, result.error?.message ?? result.output);
  }
  if (result.done && !flags.json) io.stderr.write(`${finishedHint}\n`);
}

/** Inside a run (GITGOOD_TOOL_SOCKET set): every call goes to the attempt's tool broker, which records it. */
async function throughSocket(socket: string, name: string | undefined, flags: ToolFlags, io: CliIO): Promise<void> {
  if (!name || flags.list) {
    const d = await describeBroker(socket);
    io.stdout.write(flags.json ? `${JSON.stringify(d.functions)}\n` : `${d.help}\n`);
    return;
  }
  const result = await callBroker(socket, name, await readArgs(flags.args, io));
  printResult(result, flags, io, "the task is finished; end your program to have it scored");
}

export function toolCommand(io: CliIO): Command {
  return new Command("tool")
    .description("call one tool of the live scenario (see 'gitgood env'); without NAME, list the tools")
    .argument("[name]", "tool name, e.g. view_current_merge_conflict_with")
    .option("--args <json>", "the tool's arguments as a JSON object; '-' reads standard input, '@file' a file", "{}")
    .option("--sandbox <dir>", `the scenario's sandbox (default: $${SANDBOX_ENV}, or the only live one; inside a run: $${TOOL_SOCKET_ENV})`)
    .option("--list", "list the tools with their parameters", false)
    .option("--json", "print the result as JSON", false)
    .action(async (name: string | undefined, flags: ToolFlags) => {
      const socket = process.env[TOOL_SOCKET_ENV];
      if (!flags.sandbox && socket && socket.trim() !== "") {
        await throughSocket(socket, name, flags, io);
        return;
      }
      const scenario = await openScenario(locateSandbox(flags.sandbox));
      if (!name || flags.list) {
        io.stdout.write(
          flags.json ? `${JSON.stringify(scenario.functionTools())}\n` : `${scenario.toolHelp()}\n`,
        );
        return;
      }
      const result = await scenario.callTool(name, await readArgs(flags.args, io));
      printResult(result, flags, io, "the task is finished; 'gitgood env --finish' prints the final state and removes the sandbox");
    });
}
