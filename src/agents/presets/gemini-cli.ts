import path from "node:path";
import { shellQuote } from "../mcp-config.js";
import type { AgentPreset, PresetContext } from "./preset.js";

/** gemini-cli's tools that need the network, which the jail does not have. */
const NETWORK_TOOLS = ["web_fetch", "google_web_search"];
/** Its tools that act outside the published ones: off when the agent gets only the MCP tools. */
const OWN_TOOLS = ["run_shell_command", "replace", "write_file", "invoke_agent"];

/** `~/.gemini/settings.json`: API-key auth (the attempt's, for the proxy), gitgood's MCP server, and nothing that phones home or updates. */
function settings(ctx: PresetContext): string {
  const config = {
    security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
    telemetry: { enabled: false, logPrompts: false },
    privacy: { usageStatisticsEnabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true, checkpointing: { enabled: false } },
    model: { name: ctx.model },
    tools: { exclude: [...NETWORK_TOOLS, ...(ctx.shell ? [] : OWN_TOOLS)] },
    ...(ctx.mcp ? { mcpServers: { gitgood: { command: ctx.mcp.command, args: ctx.mcp.args, trust: true, timeout: 600_000 } } } : {}),
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/**
 * gemini-cli (`@google/gemini-cli`), in prompt mode (`gemini -p PROMPT --yolo`), speaking the Gemini API
 * (streamGenerateContent with `alt=sse`) to GOOGLE_GEMINI_BASE_URL with an API key: both are the attempt's
 * proxy and key, set in the command line from GITGOOD_MODEL_URL and GITGOOD_MODEL_KEY. It is one bundled
 * JavaScript file (Node 20+); its optional native modules (a pty, a keychain) are left out by the install
 * (no install script runs), and it works without them. The work tree is trusted without asking.
 */
export const geminiCli: AgentPreset = {
  name: "gemini-cli",
  package: "@google/gemini-cli",
  version: "0.61.0",
  summary: "gemini-cli in prompt mode (Gemini API)",
  api: "gemini",
  home: (ctx) => ({ ".gemini/settings.json": settings(ctx) }),
  command(ctx) {
    const cli = path.join(ctx.installDir, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js");
    const args = ["--model", ctx.model, "--yolo", "--output-format", "text"];
    return `GOOGLE_GEMINI_BASE_URL="$GITGOOD_MODEL_URL" GEMINI_API_KEY="$GITGOOD_MODEL_KEY" ${[ctx.node, cli].map(shellQuote).join(" ")} -p ${ctx.prompt} ${args.map(shellQuote).join(" ")}`;
  },
  env: () => ({
    GEMINI_CLI_TRUST_WORKSPACE: "true",
    GEMINI_CLI_NO_RELAUNCH: "true",
    NO_BROWSER: "true",
    NO_COLOR: "1",
  }),
};
