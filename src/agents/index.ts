import { GitGoodError } from "../errors.js";
import { lookupModel } from "../model/lookup.js";
import type { ModelClient } from "../model/types.js";
import { A2aAgent, type ToolHost } from "./a2a.js";
import type { Agent } from "./agent.js";
import { CommandAgent } from "./command.js";
import { Commit0Agent } from "./commit0.js";
import { LlmAgent } from "./llm.js";
import { McpCommandAgent } from "./mcp-command.js";
import { OracleAgent } from "./oracle.js";
import { PredictionsAgent } from "./predictions.js";
import type { Prediction } from "../swe/predictions.js";
import { BaselineAgent, StrategyAgent, baselineStrategies } from "./strategies.js";

export { agentSupports, type Agent, type Session } from "./agent.js";
export { BaselineAgent, StrategyAgent } from "./strategies.js";
export { PredictionsAgent } from "./predictions.js";
export { Commit0Agent, DEFAULT_ATTEMPTS } from "./commit0.js";

/** The agents gitgood makes by name, beyond the registered scenarios' baselines. */
const BUILT_IN = ["llm", "command", "mcp-command", "a2a", "oracle", "baseline", "predictions", "commit0-debug", "commit0-oneshot"] as const;

/** Every agent name `createAgent` knows: the built-in ones, then each scenario's baselines. */
export function agentNames(): string[] {
  return [...BUILT_IN, ...baselineStrategies().keys()];
}

export interface AgentOptions {
  /** For `llm`: the model name, and optionally a client (tests pass a scripted one). */
  model?: string;
  client?: ModelClient;
  temperature?: number;
  /** For `command` and `mcp-command`: the shell command to run. */
  command?: string;
  /** For `a2a`: the A2A agent's base URL, and the host serving GitGoodBench tools to it over MCP. */
  url?: string;
  toolHost?: ToolHost | null;
  /** For `predictions`: SWE-bench predictions by instance id (`--predictions FILE`). */
  predictions?: ReadonlyMap<string, Prediction>;
  /** For `commit0-debug`: attempts per file (`--attempts`, default 3). */
  attempts?: number;
}

/** Makes an agent by name, with a one-line error for a wrong name or a missing option. */
export function createAgent(name: string, opts: AgentOptions = {}): Agent {
  switch (name) {
    case "llm": {
      const client = opts.client ?? (opts.model ? lookupModel(opts.model) : null);
      if (!client) throw new GitGoodError("BAD_OPTION", "the llm agent needs --model (and OPENAI_BASE_URL / OPENAI_API_KEY)");
      return new LlmAgent(client, { temperature: opts.temperature });
    }
    case "command":
      if (!opts.command) throw new GitGoodError("BAD_OPTION", 'the command agent needs --command "PROGRAM ARGS"');
      return new CommandAgent(opts.command);
    case "mcp-command":
      if (!opts.command) throw new GitGoodError("BAD_OPTION", 'the mcp-command agent needs --command "PROGRAM ARGS"');
      return new McpCommandAgent(opts.command);
    case "a2a":
      if (!opts.url) throw new GitGoodError("BAD_OPTION", "the a2a agent needs --url URL (the A2A agent's base URL)");
      return new A2aAgent({ url: opts.url, toolHost: opts.toolHost ?? null });
    case "oracle":
      return new OracleAgent();
    case "baseline":
      return new BaselineAgent();
    case "commit0-debug":
    case "commit0-oneshot": {
      const client = opts.client ?? (opts.model ? lookupModel(opts.model) : null);
      if (!client) throw new GitGoodError("BAD_OPTION", `the ${name} agent needs --model (and OPENAI_BASE_URL / OPENAI_API_KEY)`);
      return new Commit0Agent(name === "commit0-debug" ? "debug" : "oneshot", client, { attempts: opts.attempts, temperature: opts.temperature });
    }
    case "predictions":
      if (!opts.predictions) throw new GitGoodError("BAD_OPTION", "the predictions agent needs --predictions FILE");
      return new PredictionsAgent(opts.predictions);
    default: {
      const entries = baselineStrategies().get(name);
      if (entries) return new StrategyAgent(name, entries);
      throw new GitGoodError("BAD_OPTION", `unknown agent '${name}'; agents: ${agentNames().join(", ")}`);
    }
  }
}
