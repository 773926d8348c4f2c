import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { CliIO } from "./io.js";
import { VERBS } from "./verbs.js";
import { TABLE_FILE } from "./built-help.js";

/**
 * `gitgood --help` (under the key "") and each verb's help, printed 80 columns wide by the real commands
 * through `buildProgram`: the table built-help.ts reads, made from the verbs' own commands at every build,
 * so it cannot drift from them.
 */
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

// `node dist/cli/help-table.js` (the build's last step) writes the table (built-help.ts reads it).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  renderHelpTable().then(
    (table) => writeFileSync(TABLE_FILE, `${JSON.stringify(table, null, 1)}\n`),
    (err: unknown) => {
      process.stderr.write(`help-table: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
