import { readFileSync } from "node:fs";
import { Command } from "commander";
import { GitGoodError } from "../errors.js";
import { logCall } from "../sandbox/calls.js";
import { SANDBOX_ENV, locateSandbox } from "../sandbox/locate.js";
import { openScenario } from "../scenarios/index.js";

interface ToolFlags {
  args: string;
  sandbox?: string;
  json: boolean;
  list: boolean;
}

/** Reads `--args`: JSON text, `-` for standard input, or `@file`. */
function readArgs(value: string): unknown {
  let text = value;
  if (value === "-") text = readFileSync(0, "utf8");
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

export function toolCommand(): Command {
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
        process.stdout.write(
          flags.json ? `${JSON.stringify(scenario.functionTools())}\n` : `${scenario.toolHelp()}\n`,
        );
        return;
      }
      const args = readArgs(flags.args);
      const result = await scenario.callTool(name, args);
      logCall(scenario.sandbox, {
        at: new Date().toISOString(),
        tool: name,
        args,
        ok: result.ok,
        output: result.output,
        done: result.done,
      });
      if (flags.json) process.stdout.write(`${JSON.stringify(result)}\n`);
      else if (result.ok) process.stdout.write(`${result.output}\n`);
      if (!result.ok) {
        throw new GitGoodError(result.error?.code ?? "TOOL_ERROR", result.error?.message ?? result.output);
      }
      if (result.done && !flags.json) {
        process.stderr.write("the task is finished; 'gitgood env --finish' prints the final state and removes the sandbox\n");
      }
    });
}
