import { readFileSync } from "node:fs";
import { Command } from "commander";
import { GitGoodError, isErrorCode } from "../errors.js";
import { logCall } from "../sandbox/calls.js";
import { SANDBOX_ENV, locateSandbox } from "../sandbox/locate.js";
import { openScenario } from "../scenarios/index.js";
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

export function toolCommand(io: CliIO): Command {
  return new Command("tool")
    .description("call one tool of the live scenario (see 'gitgood env'); without NAME, list the tools")
    .argument("[name]", "tool name, e.g. view_current_merge_conflict_with")
    .option("--args <json>", "the tool's arguments as a JSON object; '-' reads standard input, '@file' a file", "{}")
    .option("--sandbox <dir>", `the scenario's sandbox (default: $${SANDBOX_ENV}, or the only live one)`)
    .option("--list", "list the tools with their parameters", false)
    .option("--json", "print the result as JSON", false)
    .action(async (name: string | undefined, flags: ToolFlags) => {
      const scenario = await openScenario(locateSandbox(flags.sandbox));
      if (!name || flags.list) {
        io.stdout.write(
          flags.json ? `${JSON.stringify(scenario.functionTools())}\n` : `${scenario.toolHelp()}\n`,
        );
        return;
      }
      const args = await readArgs(flags.args, io);
      const result = await scenario.callTool(name, args);
      logCall(scenario.sandbox, {
        at: new Date().toISOString(),
        tool: name,
        args,
        ok: result.ok,
        output: result.output,
        done: result.done,
      });
      if (flags.json) io.stdout.write(`${JSON.stringify(result)}\n`);
      else if (result.ok) io.stdout.write(`${result.output}\n`);
      if (!result.ok) {
        // A failed result carries a declared code; anything else is a bug.
        const code = result.error && isErrorCode(result.error.code) ? result.error.code : "INTERNAL";
        throw new GitGoodError(code, result.error?.message ?? result.output);
      }
      if (result.done && !flags.json) {
        io.stderr.write("the task is finished; 'gitgood env --finish' prints the final state and removes the sandbox\n");
      }
    });
}
