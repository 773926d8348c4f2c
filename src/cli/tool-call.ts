import { readFileSync } from "node:fs";
import { GitGoodError, isErrorCode } from "../errors.js";
import { TOOL_SOCKET_ENV } from "../agents/tool-socket.js";
import { callBroker, describeBroker } from "../runs/broker-client.js";
import type { ScenarioToolResult } from "../scenarios/types.js";
import { readAll, type CliIO } from "./io.js";
import { at } from "../util/at.js";

/**
 * `gitgood tool` without its parser: a command agent starts it for every tool call, so the common
 * call (a tool name and its options, forwarded to the attempt's broker) loads neither commander nor
 * the scenario registry. tool.ts declares the command for commander from the same table.
 */

export interface ToolFlags {
  args: string;
  sandbox?: string;
  json: boolean;
  list: boolean;
}

/** The options of `gitgood tool`: one table for the commander command (tool.ts, with their help) and the quick parser. */
export const TOOL_OPTIONS = {
  args: { flag: "--args <json>", takesValue: true },
  sandbox: { flag: "--sandbox <dir>", takesValue: true },
  list: { flag: "--list", takesValue: false },
  json: { flag: "--json", takesValue: false },
} as const;

export type ToolOption = keyof typeof TOOL_OPTIONS;

export const TOOL_DEFAULTS: ToolFlags = { args: "{}", json: false, list: false };

const isToolOption = (name: string): name is ToolOption => Object.hasOwn(TOOL_OPTIONS, name);

/**
 * The tool name and flags of a plain call (at most one name; the long options of the table, as
 * `--opt value` or `--opt=value`), or null for anything else (help, an unknown or incomplete option,
 * extra arguments, `--`): commander then parses the call and words any error.
 */
export function parseToolCall(argv: readonly string[]): { name: string | undefined; flags: ToolFlags } | null {
  const flags: ToolFlags = { ...TOOL_DEFAULTS };
  let name: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = at(argv, i);
    if (!arg.startsWith("-")) {
      if (name !== undefined) return null;
      name = arg;
      continue;
    }
    if (!arg.startsWith("--") || arg === "--") return null;
    const eq = arg.indexOf("=");
    const key = arg.slice(2, eq < 0 ? undefined : eq);
    if (!isToolOption(key)) return null;
    if (!TOOL_OPTIONS[key].takesValue) {
      if (eq >= 0) return null;
      if (key === "list" || key === "json") flags[key] = true;
      continue;
    }
    let value: string | undefined;
    if (eq >= 0) value = arg.slice(eq + 1);
    else value = argv[++i];
    if (value === undefined) return null;
    if (key === "args") flags.args = value;
    else if (key === "sandbox") flags.sandbox = value;
  }
  return { name, flags };
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

/**
 * Inside a run (GITGOOD_TOOL_SOCKET set): every call goes to the attempt's tool broker, which records
 * it and answers the tool list and help too, so this side never loads a scenario.
 */
async function throughSocket(socket: string, name: string | undefined, flags: ToolFlags, io: CliIO): Promise<void> {
  if (!name || flags.list) {
    const d = await describeBroker(socket);
    io.stdout.write(flags.json ? `${JSON.stringify(d.functions)}\n` : `${d.help}\n`);
    return;
  }
  const result = await callBroker(socket, name, await readArgs(flags.args, io));
  printResult(result, flags, io, "the task is finished; end your program to have it scored");
}

/** Outside a run: the scenario is opened from its sandbox on disk, and the call made in this process. */
async function inSandbox(name: string | undefined, flags: ToolFlags, io: CliIO): Promise<void> {
  const [{ gitVersion }, { locateSandbox }, { openScenario }] = await Promise.all([
    import("../git/version.js"),
    import("../sandbox/locate.js"),
    import("../scenarios/index.js"),
  ]);
  await gitVersion();
  const scenario = await openScenario(locateSandbox(flags.sandbox));
  if (!name || flags.list) {
    io.stdout.write(flags.json ? `${JSON.stringify(scenario.functionTools())}\n` : `${scenario.toolHelp()}\n`);
    return;
  }
  const result = await scenario.callTool(name, await readArgs(flags.args, io));
  printResult(result, flags, io, "the task is finished; 'gitgood env --finish' prints the final state and removes the sandbox");
}

/** Runs one `gitgood tool` call: through the attempt's broker inside a run, else in the sandbox named or found. */
export async function toolCall(name: string | undefined, flags: ToolFlags, io: CliIO): Promise<void> {
  const socket = process.env[TOOL_SOCKET_ENV];
  if (!flags.sandbox && socket && socket.trim() !== "") await throughSocket(socket, name, flags, io);
  else await inSandbox(name, flags, io);
}
