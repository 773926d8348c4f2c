import { writeFileSync } from "node:fs";
import path from "node:path";
import { MCP_COMMAND_ENV, MCP_CONFIG_ENV, mcpConfig, socketServer, shellLine } from "./mcp-config.js";
import { nodeCommand } from "../sandbox/isolation.js";
import type { RunProxy } from "../proxy/index.js";
import type { Agent, Session } from "./agent.js";
import { runExternalAgent, sharedDir } from "./external.js";

const CONFIG_FILE = "mcp.json";

/**
 * An external program that acts through MCP. It runs in the sandbox's work tree (isolated, see
 * `Sandbox.exec`) with the task on stdin and the scenario's MCP server configured for it:
 * GITGOOD_MCP_CONFIG names a configuration file (`{"mcpServers": {"gitgood": {"command": ..., "args":
 * [...]}}}`), GITGOOD_MCP_COMMAND holds the same server as one shell line. The server (`gitgood mcp
 * --tool-socket PATH`) forwards every call to the attempt's tool broker, which records it; the run scores
 * the scenario when the program exits. A non-zero exit is an error.
 */
export class McpCommandAgent implements Agent {
  readonly name: string;
  readonly external = true;

  constructor(
    private readonly command: string,
    /** The run's model proxy, which the program's model calls go through (none: it reaches no model). */
    private readonly proxy: RunProxy | null = null,
  ) {
    this.name = `mcp-command:${command.slice(0, 60)}`;
  }

  async run(session: Session): Promise<void> {
    const shared = sharedDir(session);
    const server = socketServer(shared.socket, nodeCommand(session.scenario.sandbox.isolation));
    writeFileSync(path.join(shared.host, CONFIG_FILE), `${JSON.stringify(mcpConfig(server), null, 2)}\n`);
    await runExternalAgent(session, this.command, {
      [MCP_CONFIG_ENV]: path.join(shared.seen, CONFIG_FILE),
      [MCP_COMMAND_ENV]: shellLine(server),
    }, this.proxy);
  }
}
