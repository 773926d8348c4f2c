import { writeFileSync } from "node:fs";
import { leaderboardJsonSchema } from "../leaderboard/schema.js";
import { runSpecJsonSchema } from "../runs/spec.js";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import type { CliIO } from "./io.js";
import { verbs } from "./verbs.js";

/** Where the generated reference goes, relative to the package root. */
export const CLI_REFERENCE_FILE = "docs/cli.md";
/** Where `npm run docs` writes the run spec's JSON Schema (runs/spec.ts). */
export const RUN_SPEC_SCHEMA_FILE = "docs/run-spec.schema.json";

/** Where `npm run docs` writes the leaderboard JSON's schema (leaderboard/schema.ts). */
export const LEADERBOARD_SCHEMA_FILE = "docs/leaderboard.schema.json";

/** The leaderboard JSON's schema as docs/ publishes it. */
export function renderLeaderboardSchema(): string {
  return `${JSON.stringify(leaderboardJsonSchema(), null, 2)}\n`;
}

/** The run spec's JSON Schema as docs/ publishes it. */
export function renderRunSpecSchema(): string {
  return `${JSON.stringify({ title: "gitgood run spec", ...runSpecJsonSchema() }, null, 2)}\n`;
}

/** Every command under `cmd` (itself first), depth first, in the order they were declared. */
function commandTree(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap(commandTree)];
}

/** The command's words from the program down (`gitgood dataset import`). */
function commandPath(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c !== null; c = c.parent) words.unshift(c.name());
  return words.join(" ");
}

/**
 * The CLI reference as Markdown, made from the commands' own definitions (the help each prints, 80 columns
 * wide): a section per verb and per subcommand, in the order `gitgood --help` lists them. `npm run docs`
 * writes it to docs/cli.md, and a test fails when the file is not what the commands say.
 */
export async function renderCliReference(): Promise<string> {
  const { buildProgram } = await import("./main.js");
  const io: CliIO = { stdout: { write: () => true }, stderr: { write: () => true }, stdin: (async function* () {})() };
  const parts = [
    "# Command-line reference",
    "",
    "Generated from the commands' own definitions by `npm run docs` (`src/cli/cli-reference.ts`); do not edit by hand.",
    "The README's [tour of the main jobs](../README.md#a-tour-of-the-main-jobs) says what the verbs are for, with examples; the pages beside this one say the rest.",
    "",
  ];
  const top = await buildProgram(io);
  parts.push("## gitgood", "", "```text", top.helpInformation().trimEnd(), "```", "");
  for (const verb of verbs()) {
    const program = await buildProgram(io, verb.name);
    const cmd = program.commands.find((c) => c.name() === verb.name);
    if (!cmd) continue;
    for (const c of commandTree(cmd)) {
      const heading = c === cmd ? "##" : "###";
      parts.push(`${heading} ${commandPath(c)}`, "", "```text", c.helpInformation().trimEnd(), "```", "");
    }
  }
  return `${parts.join("\n").trimEnd()}\n`;
}

// `node dist/cli/cli-reference.js` (`npm run docs`) writes the reference.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  renderCliReference().then(
    (text) => {
      writeFileSync(CLI_REFERENCE_FILE, text);
      writeFileSync(RUN_SPEC_SCHEMA_FILE, renderRunSpecSchema());
      writeFileSync(LEADERBOARD_SCHEMA_FILE, renderLeaderboardSchema());
    },
    (err: unknown) => {
      process.stderr.write(`cli-reference: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
