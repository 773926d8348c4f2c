import { Command, CommanderError } from "commander";
import { createRequire } from "node:module";
import { isGitGoodError } from "../errors.js";
import { gitVersion } from "../git/version.js";
import { escapeControls } from "../util/escape.js";
import { benchCommand } from "./bench.js";
import { datasetCommand } from "./dataset.js";
import { mineCommand } from "./mine.js";
import { reportCommand } from "./report.js";
import { runCommand } from "./run.js";
import { envCommand } from "./env.js";
import { toolCommand } from "./tool.js";
import { memoryCommand } from "./memory.js";
import { mcpCommand } from "./mcp.js";

const pkg = createRequire(import.meta.url)("../../package.json") as { version: string };

export function buildProgram(): Command {
  const program = new Command("gitgood")
    .description("Measure and improve how well AI agents handle Git (GitGoodBench scenarios: MCR, IR, ICC)")
    .version(pkg.version)
    .showHelpAfterError("(run 'gitgood --help' for usage)")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .hook("preAction", async () => {
      await gitVersion();
    });
  program.addCommand(mineCommand());
  program.addCommand(datasetCommand());
  program.addCommand(runCommand());
  program.addCommand(reportCommand());
  program.addCommand(benchCommand());
  program.addCommand(envCommand());
  program.addCommand(toolCommand());
  program.addCommand(memoryCommand());
  program.addCommand(mcpCommand());
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

/** Runs the CLI; returns the exit code. Errors become one line on stderr, never a stack trace. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    await buildProgram().parseAsync([...argv]);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander already printed its message (or help/version, which exit with code 0).
      return err.exitCode;
    }
    if (isGitGoodError(err)) {
      process.stderr.write(`gitgood: ${escapeControls(err.message)}\n`);
      return err.code === "BAD_OPTION" ? 2 : 1;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`gitgood: unexpected error: ${escapeControls(message)}\n`);
    if (process.env.GITGOOD_DEBUG && err instanceof Error) process.stderr.write(`${err.stack ?? ""}\n`);
    return 1;
  }
}
