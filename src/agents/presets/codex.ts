import path from "node:path";
import { shellQuote } from "../mcp-config.js";
import type { AgentPreset, PresetContext } from "./preset.js";

/** A TOML value: strings as basic strings (JSON's escapes are TOML's), arrays of them, booleans and numbers as they are. */
function toml(v: string | number | boolean | readonly string[]): string {
  if (Array.isArray(v)) return `[${v.map((s) => JSON.stringify(s)).join(", ")}]`;
  return typeof v === "string" ? JSON.stringify(v) : String(v);
}

function table(name: string | null, entries: Record<string, string | number | boolean | readonly string[]>): string {
  const lines = Object.entries(entries).map(([k, v]) => `${k} = ${toml(v)}`);
  return `${name ? `[${name}]\n` : ""}${lines.join("\n")}\n`;
}

/**
 * Codex's features turned off in every attempt: retrying a refused connection for ever, compressing request
 * bodies (the proxy reads them), and what needs the network or a person. Its shell tools are turned off too
 * when the agent gets only gitgood's tools.
 */
const FEATURES_OFF = ["unbounded_connection_retries", "enable_request_compression", "goals", "image_generation", "apps", "plugins", "tool_suggest"];
const SHELL_FEATURES = ["shell_tool", "unified_exec"];

/** `~/.codex/config.toml`: a model provider of its own for the proxy (the Responses API), gitgood's MCP server, and nothing that phones home. */
function config(ctx: PresetContext): string {
  const off = [...FEATURES_OFF, ...(ctx.shell ? [] : SHELL_FEATURES)];
  const parts = [
    table(null, {
      model: ctx.model,
      model_provider: "gitgood",
      approval_policy: "never",
      sandbox_mode: "danger-full-access",
      web_search: "disabled",
      check_for_update_on_startup: false,
      hide_agent_reasoning: true,
    }),
    // base_url is the attempt's, given on the command line (`-c`), where the shell expands it.
    table("model_providers.gitgood", { name: "gitgood", env_key: "OPENAI_API_KEY", wire_api: "responses", request_max_retries: 1, stream_max_retries: 1 }),
    table("features", Object.fromEntries(off.map((f) => [f, false]))),
    table("agents", { enabled: false }),
    table("analytics", { enabled: false }),
    table("feedback", { enabled: false }),
    table("history", { persistence: "none" }),
  ];
  if (ctx.mcp) parts.push(table("mcp_servers.gitgood", { command: ctx.mcp.command, args: ctx.mcp.args, startup_timeout_sec: 120, tool_timeout_sec: 600 }));
  return parts.join("\n");
}

/**
 * Codex (`@openai/codex`), as `codex exec PROMPT`, speaking the OpenAI Responses API to the proxy through a
 * model provider of its configuration. Its binary (Rust, statically linked) comes in the platform package,
 * an optional dependency that is the same package at a platform version (`@openai/codex@V-linux-x64`) on
 * the npm registry; no install script runs. It is started through its JavaScript launcher, which finds that
 * binary. The jail is its sandbox: its own (Landlock, seccomp, bubblewrap) is bypassed and it asks no approval.
 */
export const codex: AgentPreset = {
  name: "codex",
  package: "@openai/codex",
  version: "0.100.0",
  summary: "Codex's `exec` (OpenAI Responses API)",
  api: "openai",
  home: (ctx) => ({ ".codex/config.toml": config(ctx) }),
  command(ctx) {
    const launcher = path.join(ctx.installDir, "node_modules", "@openai", "codex", "bin", "codex.js");
    const args = ["exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--color", "never", "--model", ctx.model];
    return `${[ctx.node, launcher, ...args].map(shellQuote).join(" ")} -c "model_providers.gitgood.base_url=$OPENAI_BASE_URL" ${ctx.prompt}`;
  },
  env: () => ({ RUST_LOG: "error" }),
};
