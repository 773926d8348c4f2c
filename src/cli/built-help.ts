import { readFileSync } from "node:fs";

/**
 * Every verb's `--help`, as commander prints it 80 columns wide, written by `npm run build` next to the
 * compiled CLI: `gitgood VERB --help` then prints it without loading the verb and what it imports.
 * The table is derived from the verbs' own commands at every build, so it cannot drift from them.
 */
export const TABLE_FILE = new URL("./verb-help.json", import.meta.url);

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
