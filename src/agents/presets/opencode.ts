import path from "node:path";
import { shellQuote } from "../mcp-config.js";
import type { AgentPreset } from "./preset.js";

/** The platform package that holds opencode's binary (an optional dependency of `opencode-ai`, from the npm registry). */
function binaryPackage(): string {
  const os = process.platform === "win32" ? "windows" : process.platform;
  return `opencode-${os}-${process.arch}`;
}

/**
 * opencode (`opencode-ai`), as `opencode run PROMPT`, speaking OpenAI chat completions to the proxy through
 * a provider of its configuration (`gitgood/MODEL`, the OpenAI-compatible SDK it bundles). Its binary comes
 * from the platform package, an optional dependency on the npm registry; no install script is run.
 */
export const opencode: AgentPreset = {
  name: "opencode",
  package: "opencode-ai",
  version: "1.18.33",
  summary: "opencode's `run` (OpenAI chat completions)",
  api: "openai",
  home(ctx) {
    const config = {
      $schema: "https://opencode.ai/config.json",
      provider: {
        gitgood: {
          npm: "@ai-sdk/openai-compatible",
          name: "gitgood",
          options: { baseURL: "{env:OPENAI_BASE_URL}", apiKey: "{env:OPENAI_API_KEY}" },
          models: { [ctx.model]: { name: ctx.model, tool_call: true } },
        },
      },
      model: `gitgood/${ctx.model}`,
      small_model: `gitgood/${ctx.model}`,
      autoupdate: false,
      share: "disabled",
      // Without a shell of its own (--tools mcp) its shell and editing tools are denied: opencode 1.18 still offers
      // them to the model when only `tools` turns them off, and runs them when called.
      permission: ctx.shell ? { edit: "allow", bash: "allow", webfetch: "deny" } : { edit: "deny", bash: "deny", webfetch: "deny" },
      ...(ctx.shell ? {} : { tools: { bash: false, edit: false, write: false, patch: false } }),
      ...(ctx.mcp ? { mcp: { gitgood: { type: "local", command: [ctx.mcp.command, ...ctx.mcp.args], enabled: true } } } : {}),
    };
    return { ".config/opencode/opencode.json": `${JSON.stringify(config, null, 2)}\n` };
  },
  command(ctx) {
    const bin = path.join(ctx.installDir, "node_modules", binaryPackage(), "bin", "opencode");
    // --title names the session, so no title is asked of the model; its warnings and errors go to stderr.
    return `${shellQuote(bin)} run --title gitgood --print-logs --log-level WARN ${ctx.prompt}`;
  },
  env: () => ({
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    OPENCODE_DISABLE_SHARE: "1",
  }),
};
