import { GitGoodError } from "../errors.js";
import { lookupModel } from "../model/lookup.js";
import type { ModelClient } from "../model/types.js";
import { RunProxy } from "../proxy/index.js";
import { A2aAgent, type ToolHost } from "./a2a.js";
import type { Agent } from "./agent.js";
import { CommandAgent } from "./command.js";
import { LlmAgent } from "./llm.js";
import { McpCommandAgent } from "./mcp-command.js";
import { OracleAgent } from "./oracle.js";
import { PRESETS, presetAgent } from "./presets/index.js";
import { BaselineAgent, StrategyAgent, baselineStrategies } from "./strategies.js";

export { agentSupports, type Agent, type Session } from "./agent.js";
export { BaselineAgent, StrategyAgent } from "./strategies.js";

/** What building an agent by kind may need: a model and client, a command, an A2A URL, the run's proxy, a family kind's own options. */
export interface AgentOptions {
  /** For agents that talk to a model: the model name, and optionally a client (tests pass a scripted one). */
  model?: string;
  client?: ModelClient;
  temperature?: number;
  /** For `command` and `mcp-command`: the shell command to run. */
  command?: string;
  /** For `a2a`: the A2A agent's base URL, and the host serving GitGoodBench tools to it over MCP. */
  url?: string;
  toolHost?: ToolHost | null;
  /** For external agents: the run's recording model proxy, which their model calls go through. */
  proxy?: RunProxy | null;
  /** Options of the agents a family adds (`--attempts`, a predictions file), each read by its own kind. */
  [option: string]: unknown;
}

/**
 * The agent's own settings of a run (`--command`, `--url`, `--agent-version`, `--tools`), by the names of the
 * options `createAgent` gives them as.
 */
export const AGENT_SETTINGS = ["command", "url", "agentVersion", "tools"] as const;
export type AgentSetting = (typeof AGENT_SETTINGS)[number];

/** One way to make an agent by name (`--agent NAME`). */
export interface AgentKind {
  readonly name: string;
  /**
   * The agent settings it takes; `create` gets no other, and a run of it neither records nor compares the
   * others (`--agent llm --command …` is a run of the llm agent whatever the command). Absent: every one.
   */
  readonly settings?: readonly AgentSetting[];
  /** The agent talks to the model of `--model` (run.json records the model, the response cache serves it). */
  readonly usesModel?: boolean;
  /** It reaches that model through the run's recording proxy, not through a client of gitgood's (the CLI-agent presets). */
  readonly proxied?: boolean;
  /** Makes the agent, or throws BAD_OPTION naming the option it misses. */
  create(opts: AgentOptions): Agent;
}

/** The model client an agent kind that talks to a model gets: the one given, else `--model`'s. */
export function modelClientFor(kind: string, opts: AgentOptions): ModelClient {
  const client = opts.client ?? (opts.model ? lookupModel(opts.model) : null);
  if (!client) throw new GitGoodError("BAD_OPTION", `the ${kind} agent needs --model (and OPENAI_BASE_URL / OPENAI_API_KEY)`);
  return client;
}

/** The run's model proxy given in the options, if any. */
function proxyOf(opts: AgentOptions): RunProxy | null {
  return opts.proxy instanceof RunProxy ? opts.proxy : null;
}

/** The agents every family can run, then (registered by the families) the families' own. */
const KINDS: AgentKind[] = [
  { name: "llm", usesModel: true, settings: [], create: (opts) => new LlmAgent(modelClientFor("llm", opts), { temperature: opts.temperature }) },
  {
    name: "command",
    settings: ["command"],
    create(opts) {
      if (!opts.command) throw new GitGoodError("BAD_OPTION", 'the command agent needs --command "PROGRAM ARGS"');
      return new CommandAgent(opts.command, proxyOf(opts));
    },
  },
  {
    name: "mcp-command",
    settings: ["command"],
    create(opts) {
      if (!opts.command) throw new GitGoodError("BAD_OPTION", 'the mcp-command agent needs --command "PROGRAM ARGS"');
      return new McpCommandAgent(opts.command, proxyOf(opts));
    },
  },
  {
    name: "a2a",
    settings: ["url"],
    create(opts) {
      if (!opts.url) throw new GitGoodError("BAD_OPTION", "the a2a agent needs --url URL (the A2A agent's base URL)");
      return new A2aAgent({ url: opts.url, toolHost: opts.toolHost ?? null });
    },
  },
  ...PRESETS.map(
    (preset): AgentKind => ({
      name: preset.name,
      usesModel: true,
      proxied: true,
      settings: ["agentVersion", "tools"],
      create: (opts) => presetAgent(preset, { ...opts, proxy: proxyOf(opts) }),
    }),
  ),
  { name: "oracle", settings: [], create: () => new OracleAgent() },
  { name: "baseline", settings: [], create: () => new BaselineAgent() },
];

/** Adds an agent kind (a family's agents); its name must be new. */
export function registerAgentKind(kind: AgentKind): void {
  if (kindNamed(kind.name) !== undefined || baselineStrategies().has(kind.name)) {
    throw new GitGoodError("INTERNAL", `an agent named ${kind.name} is registered already`);
  }
  KINDS.push(kind);
}

/** Removes an agent kind added with `registerAgentKind`. */
export function unregisterAgentKind(name: string): void {
  const i = KINDS.findIndex((k) => k.name === name);
  if (i >= 0) KINDS.splice(i, 1);
}

function kindNamed(name: string): AgentKind | undefined {
  return KINDS.find((k) => k.name === name);
}

/** Whether the agent of this name talks to the model of `--model`. */
export function agentUsesModel(name: string): boolean {
  return kindNamed(name)?.usesModel === true;
}

/** Whether the agent of this name asks its model through the run's proxy (gitgood then makes no model client for it). */
export function agentProxied(name: string): boolean {
  return kindNamed(name)?.proxied === true;
}

/**
 * Whether the agent of this name takes the agent setting: as its kind declares (every one when it declares
 * none); a scenario's baseline takes none; a name no agent has, every one (a run of it is refused anyway).
 */
export function agentTakes(name: string, setting: AgentSetting): boolean {
  const kind = kindNamed(name);
  if (kind) return kind.settings === undefined || kind.settings.includes(setting);
  return !baselineStrategies().has(name);
}

/** Every agent name `createAgent` knows: the registered kinds, then each scenario's baselines. */
export function agentNames(): string[] {
  return [...KINDS.map((k) => k.name), ...baselineStrategies().keys()];
}

/** Makes an agent by name, with a one-line error for a wrong name or a missing option. */
export function createAgent(name: string, opts: AgentOptions = {}): Agent {
  const kind = kindNamed(name);
  if (kind) return kind.create(takenOptions(name, opts));
  const entries = baselineStrategies().get(name);
  if (entries) return new StrategyAgent(name, entries);
  throw new GitGoodError("BAD_OPTION", `unknown agent '${name}'; agents: ${agentNames().join(", ")}`);
}

/** The options without the agent settings the agent of this name does not take (`agentTakes`). */
function takenOptions(name: string, opts: AgentOptions): AgentOptions {
  return Object.fromEntries(Object.entries(opts).filter(([option]) => !isAgentSetting(option) || agentTakes(name, option)));
}

/** Whether an option `createAgent` gives is one of the agent settings. */
function isAgentSetting(option: string): option is AgentSetting {
  return (AGENT_SETTINGS as readonly string[]).includes(option);
}
