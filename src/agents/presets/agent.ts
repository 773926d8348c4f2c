import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../../errors.js";
import type { RunProxy } from "../../proxy/index.js";
import { isolates, nodeCommand } from "../../sandbox/isolation.js";
import type { Agent, Session } from "../agent.js";
import { gitgoodOnPath } from "../command.js";
import { runExternalAgent, sharedDir } from "../external.js";
import { mcpConfig, shellQuote, socketServer } from "../mcp-config.js";
import { installPackage } from "./install.js";
import type { AgentPreset, PresetContext } from "./preset.js";

/** How a preset agent gets the scenario's tools: over MCP, through its own shell (`gitgood tool`), or both. */
export type ToolsMode = "mcp" | "shell" | "both";
export const TOOLS_MODES: readonly ToolsMode[] = ["both", "mcp", "shell"];

export interface PresetOptions {
  /** The model the agent uses, as given to `--model` (a `provider/` prefix is taken off). */
  model: string;
  /** `--agent-version`; default the preset's pinned one. */
  version?: string;
  tools: ToolsMode;
  proxy: RunProxy | null;
}

/** Model prefixes of gitgood's providers, which the agent's own API does not know. */
const PROVIDER_PREFIX = /^(openai|openai-responses|anthropic)\//;

/**
 * A CLI coding agent run by its preset: installed once from npm into gitgood's cache, started in the
 * sandbox's jail with the task prompt, its home holding its configuration, its model calls going through the
 * run's recording proxy (which records them as the attempt's model turns) and, for a scenario with tools,
 * gitgood's tools offered over MCP and/or `gitgood tool` on its PATH. What it prints (its final message) and
 * its stderr go into the trajectory. A failed install is AGENT_INSTALL_FAILED (infrastructure); an agent that
 * exits non-zero is AGENT_FAILED; one that hangs runs out of the attempt's time.
 */
export class PresetAgent implements Agent {
  readonly name: string;
  readonly external = true;
  readonly metered = true;
  private readonly version: string;

  constructor(
    private readonly preset: AgentPreset,
    private readonly opts: PresetOptions,
  ) {
    this.version = opts.version ?? preset.version;
    this.name = `${preset.name}@${this.version}`;
  }

  async prepare(): Promise<void> {
    await installPackage(this.preset.package, this.version);
  }

  async run(session: Session): Promise<void> {
    if (!this.opts.proxy) throw new GitGoodError("INTERNAL", `the ${this.preset.name} agent runs only with the run's model proxy`);
    const installDir = await installPackage(this.preset.package, this.version);
    const sandbox = session.scenario.sandbox;
    const iso = sandbox.isolation;
    // The jail shows the installation read-only, at the same path.
    if (isolates(iso) && !iso.allowRead.includes(installDir)) sandbox.isolate({ ...iso, allowRead: [...iso.allowRead, installDir] });
    const shared = sharedDir(session);
    const node = nodeCommand(sandbox.isolation);
    const hasTools = session.tools.length > 0;
    const mcp = hasTools && this.opts.tools !== "shell" ? socketServer(shared.socket, node) : null;
    const files = path.join(shared.host, "agent");
    mkdirSync(path.join(files, "home"), { recursive: true });
    const seen = path.join(shared.seen, "agent");
    if (mcp) writeFileSync(path.join(files, "mcp.json"), `${JSON.stringify(mcpConfig(mcp), null, 2)}\n`);
    writeFileSync(path.join(files, "prompt.txt"), this.prompt(session, mcp !== null, hasTools && this.opts.tools !== "mcp"));
    const ctx: PresetContext = {
      model: this.opts.model.replace(PROVIDER_PREFIX, ""),
      installDir,
      node,
      mcp,
      mcpConfigFile: mcp ? path.join(seen, "mcp.json") : null,
      // Without scenario tools (a patch task) the agent works with its own tools whatever --tools says.
      shell: !hasTools || this.opts.tools !== "mcp",
      prompt: `"$(cat ${shellQuote(path.join(seen, "prompt.txt"))})"`,
    };
    for (const [rel, text] of Object.entries(this.preset.home(ctx))) {
      const file = path.join(files, "home", rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
    const command = `cp -R ${shellQuote(path.join(seen, "home"))}/. "$HOME"/ && ${this.preset.command(ctx)}`;
    const env = { ...this.preset.env(ctx), ...(hasTools && ctx.shell ? { PATH: gitgoodOnPath(session) } : {}) };
    const { stdout } = await runExternalAgent(session, command, env, this.opts.proxy, "");
    const final = stdout.trim();
    if (final !== "") session.note("note", `final message of ${this.name}:\n${final}`);
  }

  /** The task as the agent is given it: the scenario's context, and how to act on it. */
  private prompt(session: Session, overMcp: boolean, inShell: boolean): string {
    const parts = [session.context.text];
    if (overMcp) parts.push("Act through the tools of the MCP server named gitgood; the task is done when they say so.");
    if (inShell) parts.push(`${overMcp ? "The same tools are also" : "Act through the task's tools,"} run from the shell as \`gitgood tool NAME --args JSON\`:\n${session.toolHelp}`);
    return `${parts.join("\n\n")}\n`;
  }
}
