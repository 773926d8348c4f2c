import type { Command } from "commander";

/** Builds a verb's command by name (undefined for a name that is no verb). */
export type VerbSource = (name: string) => Promise<Command | undefined>;

const sources = new WeakMap<Command, VerbSource>();

/**
 * Lets the commands under `program` build their sibling verbs: main.ts, which holds the verb table, gives
 * the source, and a verb that reads other verbs' options (the configuration file checks every configured
 * verb's section) asks its parent for it. The verbs then never import the table that imports them.
 */
export function provideVerbs(program: Command, source: VerbSource): void {
  sources.set(program, source);
}

/** The verb source of the program `cmd` runs under, if it was given one. */
export function verbSourceOf(cmd: Command): VerbSource | undefined {
  for (let c: Command | null = cmd; c !== null; c = c.parent) {
    const source = sources.get(c);
    if (source) return source;
  }
  return undefined;
}
