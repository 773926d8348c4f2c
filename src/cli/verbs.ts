import type { Command } from "commander";
import { familyMineTypes, familyVerbs } from "../families/command-line.js";
import type { CliIO } from "./io.js";
import { mineSummary } from "./mine-text.js";

/**
 * A verb of the CLI. `term` and `summary` are what `gitgood --help` lists (commander's own term for the
 * command, and its one-line description), written out here so that listing the verbs loads none of
 * them; a test checks both against the verbs' real commands.
 */
interface Verb {
  name: string;
  term: string;
  summary: string;
  /** The verb's commander command, imported only when the verb is called. */
  load(): Promise<(io: CliIO) => Command>;
}

/**
 * The CLI's own verbs, in the order `gitgood --help` lists them; the families' verbs follow `mine`. Each is
 * imported only when it is called: a command agent starts `gitgood tool` once per tool call, and must not
 * pay for the rest.
 */
const CORE_VERBS: readonly Verb[] = [
  {
    name: "mine",
    term: "mine [options] <repo>",
    summary: mineSummary(familyMineTypes()),
    load: async () => {
      const { mineCommand } = await import("./mine.js");
      const types = await Promise.all(familyMineTypes().map(async (t) => ({ type: t.type, what: t.what, mode: await t.load() })));
      return (io) => mineCommand(io, types);
    },
  },
  {
    name: "dataset",
    term: "dataset",
    summary: "import published GitGoodBench files, split, describe, and fetch their repositories",
    load: async () => (await import("./dataset.js")).datasetCommand,
  },
  {
    name: "run",
    term: "run [options] [samples...]",
    summary: "run an agent on samples, each in its own sandbox; score, record and report (re-run to resume)",
    load: async () => (await import("./run.js")).runCommand,
  },
  {
    name: "worker",
    term: "worker [options]",
    summary: "take jobs of a 'gitgood run --queue' from Redis and run each in a local sandbox, from local clones (run on any number of machines)",
    load: async () => (await import("./worker.js")).workerCommand,
  },
  {
    name: "collect",
    term: "collect [options] <run-dir>",
    summary: "write the finished jobs of a queue into their run directory (when the producer of 'gitgood run --queue' is gone)",
    load: async () => (await import("./collect.js")).collectCommand,
  },
  {
    name: "agents",
    term: "agents",
    summary: "the CLI-agent presets (--agent claude-code, …): list, install ahead of a run, or check they are installed",
    load: async () => (await import("./agents.js")).agentsCommand,
  },
  {
    name: "status",
    term: "status [options] [run-dir]",
    summary: "a queue's progress: waiting, active, completed and failed jobs, and each worker's rate (with RUN-DIR: what it has recorded)",
    load: async () => (await import("./status.js")).statusCommand,
  },
  {
    name: "merge",
    term: "merge [options] <out> <run-dirs...>",
    summary: "join the shards (run --shard K/N) or partial run directories of one run into a new run directory, one record per key",
    load: async () => (await import("./merge.js")).mergeCommand,
  },
  {
    name: "serve",
    term: "serve [options] [samples...]",
    summary: "serve every task family as a reinforcement-learning environment over OpenEnv or the Open Reward Standard; each episode recorded in a run directory",
    load: async () => (await import("./serve.js")).serveCommand,
  },
  {
    name: "report",
    term: "report [options] <run-dir...>",
    summary: "print a run's success and solve rates per scenario, difficulty and language, and per sample; several runs side by side",
    load: async () => (await import("./report.js")).reportCommand,
  },
  {
    name: "leaderboard",
    term: "leaderboard [options] <run-dir...>",
    summary: "write a static leaderboard site (HTML and JSON) ranking runs over the same samples: solve rates, pass@k, cost, tokens, probes, contamination",
    load: async () => (await import("./leaderboard.js")).leaderboardCommand,
  },
  {
    name: "view",
    term: "view [options] <run-dir...>",
    summary: "serve a local, read-only web viewer over run directories (live while a run writes): summary, samples, transcripts, comparison",
    load: async () => (await import("./view.js")).viewCommand,
  },
  {
    name: "export",
    term: "export",
    summary: "take tasks and runs elsewhere: Harbor task directories (harbor), training data (sft), Harbor trajectories (atif), Inspect AI logs (inspect)",
    load: async () => (await import("./export.js")).exportCommand,
  },
  {
    name: "live",
    term: "live",
    summary: "build dated, contamination-checked releases of Git-work tasks from pinned repositories",
    load: async () => (await import("./live.js")).liveCommand,
  },
  {
    name: "score",
    term: "score [options] <run-dir>",
    summary: "score a finished run again from its saved final states (other judges, newer scorers), running no agent",
    load: async () => (await import("./score.js")).scoreCommand,
  },
  {
    name: "bench",
    term: "bench [options] [repo]",
    summary: "one command: mine a repository, run an agent on a few samples of each scenario, score and report",
    load: async () => (await import("./bench.js")).benchCommand,
  },
  {
    name: "env",
    term: "env [options] [samples]",
    summary: "set up one scenario in a sandbox and print its initial context and tools; --finish ends it",
    load: async () => (await import("./env.js")).envCommand,
  },
  {
    name: "tool",
    term: "tool [options] [name]",
    summary: "call one tool of the live scenario (see 'gitgood env'); without NAME, list the tools",
    load: async () => (await import("./tool.js")).toolCommand,
  },
  {
    name: "memory",
    term: "memory [options]",
    summary: "versioned agent memory kept in the workspace and committed with git (COMMIT / BRANCH / MERGE / CONTEXT / LOG)",
    load: async () => (await import("./memory.js")).memoryCommand,
  },
  {
    name: "mcp",
    term: "mcp [options] [samples...]",
    summary: "serve scenarios (and agent memory) to any MCP client, over stdio or Streamable HTTP; results go to a run directory",
    load: async () => (await import("./mcp.js")).mcpCommand,
  },
  {
    name: "a2a",
    term: "a2a",
    summary: "A2A (AgentBeats): gitgood as a green (evaluator) agent, or its llm agent as a participant",
    load: async () => (await import("./a2a.js")).a2aCommand,
  },
];

/** Every verb, the families' (those registered since start-up included) after `mine`. */
export function verbs(): readonly Verb[] {
  const at = CORE_VERBS.findIndex((v) => v.name === "mine") + 1;
  const added = familyVerbs().map(
    (v): Verb => ({
      name: v.name,
      term: v.term,
      summary: v.summary,
      load: async () => {
        const [definition, { familyCommand }] = await Promise.all([v.load(), import("./declared-options.js")]);
        return (io) => familyCommand(definition, io);
      },
    }),
  );
  return [...CORE_VERBS.slice(0, at), ...added, ...CORE_VERBS.slice(at)];
}

/** The verbs at start-up: the CLI's own and the built-in families'. */
export const VERBS: readonly Verb[] = verbs();
