import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { CliIO } from "./io.js";
import { VERBS } from "./verbs.js";

/**
 * Every verb's `--help`, as commander prints it 80 columns wide, written by `npm run build` next to the
 * compiled CLI: `gitgood VERB --help` then prints it without loading the verb and what it imports.
 * The table is derived from the verbs' own commands at every build, so it cannot drift from them.
 */
const TABLE_FILE = new URL("./verb-help.json", import.meta.url);

/** The width commander wraps help to when the output is not a terminal. */
export const HELP_WIDTH = 80;

/** The built table, or null where there is none (the sources run directly, as in tests). */
export function readHelpTable(): Record<string, string> | null {
  let text: string;
  try {
    text = readFileSync(TABLE_FILE, "utf8");
  } catch {
    return null;
  }
  const table = JSON.parse(text) as unknown;
  return typeof table === "object" && table !== null ? (table as Record<string, string>) : null;
}

/** `gitgood --help` (under the key "") and each verb's help, printed by the real commands through `buildProgram`. */
export async function renderHelpTable(): Promise<Record<string, string>> {
  const { buildProgram } = await import("./main.js");
  const table: Record<string, string> = {};
  for (const verb of [{ name: "" }, ...VERBS]) {
    let out = "";
    const io: CliIO = {
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: () => true },
      stdin: (async function* () {})(),
    };
    const program = await buildProgram(io, verb.name);
    try {
      await program.parseAsync(verb.name === "" ? ["--help"] : [verb.name, "--help"], { from: "user" });
    } catch {
      // Commander ends a help request by throwing (exitOverride); the text is out by then.
    }
    table[verb.name] = out;
  }
  return table;
}

// `node dist/cli/help-table.js` (the build's last step) writes the table. Not awaited at the top level:
// rendering imports main.js, which imports this module.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  renderHelpTable().then(
    (table) => writeFileSync(TABLE_FILE, `${JSON.stringify(table, null, 1)}\n`),
    (err: unknown) => {
      process.stderr.write(`help-table: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
