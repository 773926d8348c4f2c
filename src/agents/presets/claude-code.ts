import path from "node:path";
import { shellQuote } from "../mcp-config.js";
import type { AgentPreset } from "./preset.js";

/** Claude Code's own tools that act outside the published ones: off when the agent gets only the MCP tools. */
const OWN_TOOLS = ["Bash", "Edit", "Write", "NotebookEdit", "MultiEdit", "Task", "Agent"];
/** Tools that need the network, which the jail does not have. */
const NETWORK_TOOLS = ["WebFetch", "WebSearch"];

/**
 * Claude Code (`@anthropic-ai/claude-code`), in print mode (`claude -p PROMPT`), speaking the Anthropic
 * Messages API to ANTHROPIC_BASE_URL. 2.0.76 is plain JavaScript (cli.js) that runs on Node 18+ and waits for
 * its MCP servers to connect (MCP_TIMEOUT); 2.1 gives them 5 s and then goes on without their tools, and its
 * later releases ship a native binary that needs Node 22. As root it skips its permission prompts only with
 * IS_SANDBOX=1, which a jail is.
 */
export const claudeCode: AgentPreset = {
  name: "claude-code",
  package: "@anthropic-ai/claude-code",
  version: "2.0.76",
  summary: "Claude Code in print mode (Anthropic Messages API)",
  api: "anthropic",
  home: () => ({ ".claude.json": `${JSON.stringify({ hasCompletedOnboarding: true, bypassPermissionsModeAccepted: true }, null, 2)}\n` }),
  command(ctx) {
    const cli = path.join(ctx.installDir, "node_modules", "@anthropic-ai", "claude-code", "cli.js");
    const off = [...NETWORK_TOOLS, ...(ctx.shell ? [] : OWN_TOOLS)];
    // The prompt comes right after -p: --mcp-config and --disallowedTools take several values.
    const args = ["--model", ctx.model, "--dangerously-skip-permissions", "--disallowedTools", off.join(",")];
    if (ctx.mcpConfigFile) args.push("--strict-mcp-config", "--mcp-config", ctx.mcpConfigFile);
    return `${[ctx.node, cli, "-p"].map(shellQuote).join(" ")} ${ctx.prompt} ${args.map(shellQuote).join(" ")}`;
  },
  // Claude Code asks other models than --model on its own (a small one to vet each Bash command and to name
  // things, sub-agents): every one of them is the attempt's model, which the user's endpoint serves.
  env: (ctx) => ({
    ANTHROPIC_DEFAULT_HAIKU_MODEL: ctx.model,
    ANTHROPIC_DEFAULT_SONNET_MODEL: ctx.model,
    ANTHROPIC_DEFAULT_OPUS_MODEL: ctx.model,
    ANTHROPIC_SMALL_FAST_MODEL: ctx.model,
    CLAUDE_CODE_SUBAGENT_MODEL: ctx.model,
    IS_SANDBOX: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    MCP_TIMEOUT: "120000",
  }),
};
