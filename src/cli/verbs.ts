import type { Command } from "commander";
import type { CliIO } from "./io.js";

/**
 * The verbs of the CLI, in the order `gitgood --help` lists them. Each is imported only when it is
 * called: a command agent starts `gitgood tool` once per tool call, and must not pay for the rest.
 */
export interface Verb {
  name: string;
  load(): Promise<(io: CliIO) => Command>;
}

export const VERBS: readonly Verb[] = [
  { name: "mine", load: async () => (await import("./mine.js")).mineCommand },
  { name: "skeleton", load: async () => (await import("./skeleton.js")).skeletonCommand },
  { name: "dataset", load: async () => (await import("./dataset.js")).datasetCommand },
  { name: "run", load: async () => (await import("./run.js")).runCommand },
  { name: "report", load: async () => (await import("./report.js")).reportCommand },
  { name: "view", load: async () => (await import("./view.js")).viewCommand },
  { name: "export", load: async () => (await import("./export.js")).exportCommand },
  { name: "score", load: async () => (await import("./score.js")).scoreCommand },
  { name: "bench", load: async () => (await import("./bench.js")).benchCommand },
  { name: "env", load: async () => (await import("./env.js")).envCommand },
  { name: "tool", load: async () => (await import("./tool.js")).toolCommand },
  { name: "memory", load: async () => (await import("./memory.js")).memoryCommand },
  { name: "mcp", load: async () => (await import("./mcp.js")).mcpCommand },
  { name: "a2a", load: async () => (await import("./a2a.js")).a2aCommand },
];
