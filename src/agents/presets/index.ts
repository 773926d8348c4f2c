// The CLI-agent presets (`--agent NAME`): one line each. A new preset is a file beside these and a line here.
import { GitGoodError } from "../../errors.js";
import { claudeCode } from "./claude-code.js";
import { codex } from "./codex.js";
import { geminiCli } from "./gemini-cli.js";
import { opencode } from "./opencode.js";
import { PresetAgent, TOOLS_MODES, type ToolsMode } from "./agent.js";
import type { AgentPreset } from "./preset.js";
import type { RunProxy } from "../../proxy/index.js";

export const PRESETS: readonly AgentPreset[] = [claudeCode, opencode, codex, geminiCli];

export { PresetAgent, TOOLS_MODES, type ToolsMode, type AgentPreset };
export { agentsDir, installDir, installPackage, isInstalled } from "./install.js";

/** Where the user's endpoint of each API is configured. */
const API_ENV: Record<AgentPreset["api"], string> = {
  openai: "OPENAI_BASE_URL / OPENAI_API_KEY",
  anthropic: "ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY",
  gemini: "GOOGLE_GEMINI_BASE_URL / GEMINI_API_KEY",
};

/** The preset agent for `--agent NAME`, from its options; a missing model is a one-line BAD_OPTION. */
export function presetAgent(preset: AgentPreset, opts: { model?: string; agentVersion?: unknown; tools?: unknown; proxy: RunProxy | null }): PresetAgent {
  if (!opts.model) throw new GitGoodError("BAD_OPTION", `the ${preset.name} agent needs --model (the model it asks through gitgood's proxy, on your ${API_ENV[preset.api]} endpoint)`);
  const tools = opts.tools === undefined ? "both" : opts.tools;
  if (typeof tools !== "string" || !(TOOLS_MODES as readonly string[]).includes(tools)) {
    throw new GitGoodError("BAD_OPTION", `--tools takes ${TOOLS_MODES.join(", ")}, not '${String(tools)}'`);
  }
  const version = typeof opts.agentVersion === "string" && opts.agentVersion !== "" ? opts.agentVersion : undefined;
  return new PresetAgent(preset, { model: opts.model, version, tools: tools as ToolsMode, proxy: opts.proxy });
}
