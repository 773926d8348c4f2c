import { z } from "zod";
import { GitGoodError } from "../errors.js";
import { agentTakes, type AgentSetting } from "../agents/index.js";
import { TOOLS_MODES, type ToolsMode } from "../agents/presets/agent.js";
import { defineRunSetting, specValue, type RunSetting, type RunSpec } from "./spec-registry.js";

/* The agent's own settings: the command and mcp-command agents' program, a preset's version and tools, the a2a agent's URL. */

/**
 * The program the command and mcp-command agents run. What is evaluated: part of the identity (whose agent
 * name, `command:…`, holds only its first 60 characters).
 */
export const COMMAND = defineRunSetting<string | null>({
  key: "command",
  option: "command",
  value: "<cmd>",
  help: "program for the command and mcp-command agents (gets the context on stdin; acts through 'gitgood tool' or the MCP server in $GITGOOD_MCP_CONFIG)",
  schema: z.string().nullable(),
  parse: (text) => text,
  default: null,
  identity: true,
  kind: "choice",
  group: "agent",
});

/**
 * The npm version of a CLI-agent preset to run instead of its pinned one (null: the pinned one). Not in the
 * identity's spec: the identity's agent name is the version the preset runs (`claude-code@2.0.14`), pinned or
 * asked for, so a resume with another version is refused by that name, and one that asks for the pinned
 * version is the same run as one that does not.
 */
export const AGENT_VERSION = defineRunSetting<string | null>({
  key: "agent_version",
  option: "agent-version",
  value: "<version>",
  help: "the npm version of a CLI-agent preset (claude-code, opencode) to install and run instead of its pinned one",
  schema: z.string().nullable(),
  parse: (text) => text,
  default: null,
  identity: false,
  kind: "choice",
  group: "agent",
});

/** How a CLI-agent preset gets the scenario's tools: over MCP, through its shell, or both. What the agent is given: part of the identity. */
export const TOOLS = defineRunSetting<ToolsMode>({
  key: "tools",
  option: "tools",
  value: "<mode>",
  help: "how a CLI-agent preset gets a scenario's tools: over MCP, through its own shell (gitgood tool), or both",
  schema: z.enum(TOOLS_MODES),
  parse: (text, option) => {
    const mode = TOOLS_MODES.find((m) => m === text);
    if (mode === undefined) throw new GitGoodError("BAD_OPTION", `${option} takes ${TOOLS_MODES.join(", ")}, not '${text}'`);
    return mode;
  },
  choices: TOOLS_MODES,
  default: "both",
  identity: true,
  kind: "choice",
  group: "agent",
});

/**
 * The a2a agent's A2A base URL. Not in the identity's spec: the identity's agent name (`a2a:URL`) holds it
 * whole, so a resume with another URL is refused by that name.
 */
export const A2A_URL = defineRunSetting<string | null>({
  key: "url",
  option: "url",
  value: "<url>",
  help: "the a2a agent's A2A base URL (its card at /.well-known/agent-card.json)",
  schema: z.string().nullable(),
  parse: (text) => text,
  default: null,
  identity: false,
  kind: "choice",
  group: "agent",
});

/** What `createAgent` takes of a spec: the agent's command, A2A URL, preset version and tools. */
export function agentSettings(spec: RunSpec | undefined): { command?: string; url?: string; agentVersion?: string; tools: ToolsMode } {
  const command = specValue(spec, COMMAND);
  const url = specValue(spec, A2A_URL);
  const version = specValue(spec, AGENT_VERSION);
  return {
    ...(command !== null ? { command } : {}),
    ...(url !== null ? { url } : {}),
    ...(version !== null ? { agentVersion: version } : {}),
    tools: specValue(spec, TOOLS),
  };
}

/** The agent's settings, each by the name of the option `createAgent` gives it as. */
const AGENT_SETTING_OF: Readonly<Record<AgentSetting, RunSetting>> = { command: COMMAND, url: A2A_URL, agentVersion: AGENT_VERSION, tools: TOOLS };

/** The agent settings the agent of this name (`--agent`'s) does not take (`agentTakes`, as its definition says). */
export function ignoredAgentSettings(agent: string): RunSetting[] {
  return Object.entries(AGENT_SETTING_OF)
    .filter(([option]) => !agentTakes(agent, option as AgentSetting))
    .map(([, setting]) => setting);
}

/**
 * The spec of a run of the agent of this name: each agent setting it does not take at its default, so that
 * run.json says what the agent was given and its identity holds only that (`--agent llm --command X` is a run of
 * the llm agent: a resume with another command, or none, goes on).
 */
export function agentRunSpec(spec: RunSpec, agent: string): RunSpec {
  return { ...spec, ...Object.fromEntries(ignoredAgentSettings(agent).map((s) => [s.key, s.default])) };
}
