import { GitGoodError } from "../errors.js";
import { lookupModel } from "../model/lookup.js";
import type { ModelClient } from "../model/types.js";
import type { Agent } from "./agent.js";
import { CommitAgent, RebaseAgent, SideAgent } from "./baselines.js";
import { CommandAgent } from "./command.js";
import { LlmAgent } from "./llm.js";
import { McpCommandAgent } from "./mcp-command.js";
import { OracleAgent } from "./oracle.js";

export { AgentSession, type Agent, type TrajectoryEvent } from "./agent.js";

/** The floors of each scenario, as one agent: union merge for MCR, fix-up squashing for IR, one commit per file for ICC. */
export class BaselineAgent implements Agent {
  readonly name = "baseline";
  private readonly byKind = { mcr: new SideAgent("union"), ir: new RebaseAgent("squash-fixups"), icc: new CommitAgent("per-file") };

  supports(): boolean {
    return true;
  }

  run(session: Parameters<Agent["run"]>[0]): Promise<void> {
    return this.byKind[session.kind].run(session);
  }
}

export const AGENT_NAMES = [
  "llm",
  "command",
  "mcp-command",
  "oracle",
  "baseline",
  "ours",
  "theirs",
  "union",
  "keep",
  "squash-fixups",
  "one-commit",
  "per-file",
] as const;

export interface AgentOptions {
  /** For `llm`: the model name, and optionally a client (tests pass a scripted one). */
  model?: string;
  client?: ModelClient;
  temperature?: number;
  /** For `command` and `mcp-command`: the shell command to run. */
  command?: string;
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
    case "oracle":
      return new OracleAgent();
    case "baseline":
      return new BaselineAgent();
    case "ours":
    case "theirs":
    case "union":
      return new SideAgent(name);
    case "keep":
    case "squash-fixups":
      return new RebaseAgent(name);
    case "one-commit":
    case "per-file":
      return new CommitAgent(name);
    default:
      throw new GitGoodError("BAD_OPTION", `unknown agent '${name}'; agents: ${AGENT_NAMES.join(", ")}`);
  }
}
