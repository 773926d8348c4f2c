import type { StdioServerEntry } from "../mcp-config.js";

/** What a preset's command line and configuration are made from, for one attempt. */
export interface PresetContext {
  /** The model the agent is told to use, as its API names it (a `provider/` prefix of gitgood's taken off). */
  model: string;
  /** The preset's installation (with `node_modules/`), seen at the same path inside the jail. */
  installDir: string;
  /** The node that runs JavaScript agents (this process's, or the image's). */
  node: string;
  /** The attempt's MCP server (gitgood's tools over the tool broker), when the agent is offered the tools over MCP. */
  mcp: StdioServerEntry | null;
  /** Where the agent sees the MCP configuration file gitgood wrote (`{"mcpServers": {"gitgood": ...}}`), when offered. */
  mcpConfigFile: string | null;
  /** Whether the agent may use its own shell and file-editing tools. */
  shell: boolean;
  /** A shell word that expands to the task prompt (`"$(cat …)"`). */
  prompt: string;
}

/**
 * A CLI coding agent by name (`--agent claude-code`): the npm package and its pinned version, how it is
 * started non-interactively with the task prompt, the variables and configuration files that point it at
 * gitgood's model proxy and, when offered, its MCP server. One definition and one line in ./index.ts.
 */
export interface AgentPreset {
  readonly name: string;
  readonly package: string;
  /** The version installed unless `--agent-version` says otherwise: one checked to run on Node 20, installing from the npm registry only. */
  readonly version: string;
  /** One line for `--help` and the README: what it is and which API it speaks. */
  readonly summary: string;
  /** The model API it speaks, which the run's proxy passes on to the user's endpoint of that kind. */
  readonly api: "openai" | "anthropic" | "gemini";
  /** Files written into the jail's home directory before it starts, by path relative to the home. */
  home(ctx: PresetContext): Record<string, string>;
  /** The shell command that runs it, started in the work tree. */
  command(ctx: PresetContext): string;
  /** Variables it needs besides the proxy's (OPENAI_BASE_URL, ANTHROPIC_BASE_URL and their keys). */
  env(ctx: PresetContext): Record<string, string>;
}
