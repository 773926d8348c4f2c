import { writeFileSync } from "node:fs";
import { MCP_COMMAND_ENV, MCP_CONFIG_ENV, mcpConfig, sandboxServer, shellLine } from "./mcp-config.js";
import type { Agent, Session } from "./agent.js";
import { runExternalAgent } from "./external.js";

/**
 * An external program that acts through MCP. It runs in the sandbox's work tree with the task on
 * stdin and the scenario's MCP server configured for it: GITGOOD_MCP_CONFIG names a configuration file
 * (`{"mcpServers": {"gitgood": {"command": ..., "args": [...]}}}`), GITGOOD_MCP_COMMAND holds the same
 * server as one shell line. The server (`gitgood mcp --sandbox DIR`) logs every call in the sandbox;
 * the run reads the log and scores the sandbox when the program exits. A non-zero exit is an error.
 */
export class McpCommandAgent implements Agent {
  readonly name: string;

  constructor(private readonly command: string) {
    this.name = `mcp-command:${command.slice(0, 60)}`;
  }

  async run(session: Session): Promise<void> {
    const server = sandboxServer(session.scenario.sandbox.dir);
    const configFile = session.scenario.sandbox.privatePath("mcp.json");
    writeFileSync(configFile, `${JSON.stringify(mcpConfig(server), null, 2)}\n`);
    await runExternalAgent(session, this.command, { [MCP_CONFIG_ENV]: configFile, [MCP_COMMAND_ENV]: shellLine(server) });
  }
}
