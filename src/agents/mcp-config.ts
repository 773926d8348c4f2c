import { fileURLToPath } from "node:url";
// The quote module alone: shell-quote's index types re-declare Array.prototype.join globally.
import quote from "shell-quote/quote.js";

/** Environment variables an `mcp-command` agent program gets. */
export const MCP_CONFIG_ENV = "GITGOOD_MCP_CONFIG";
export const MCP_COMMAND_ENV = "GITGOOD_MCP_COMMAND";
/** The name the server has in a generated configuration. */
const MCP_SERVER_NAME = "gitgood";

const BIN = fileURLToPath(new URL("../../bin/gitgood.js", import.meta.url));

/** How a client starts a stdio MCP server, in the shape MCP configuration files use. */
export interface StdioServerEntry {
  command: string;
  args: string[];
}

/** The command that serves a run's attempt over stdio, forwarding to its tool socket (`gitgood mcp --tool-socket PATH`), run by `node`. */
export function socketServer(socket: string, node = process.execPath): StdioServerEntry {
  return { command: node, args: [BIN, "mcp", "--tool-socket", socket] };
}

/** A configuration file as MCP clients read it: `{"mcpServers": {"gitgood": {...}}}`. */
export function mcpConfig(entry: StdioServerEntry): { mcpServers: Record<string, StdioServerEntry> } {
  return { mcpServers: { [MCP_SERVER_NAME]: entry } };
}

/**
 * Quotes one word for a POSIX shell (shell-quote's `quote`): the shell gives back exactly `word`, in any
 * position; a word that could read as an assignment or start with `~` or `#` is escaped too.
 */
export function shellQuote(word: string): string {
  return quote([word]);
}

/** The same command as one shell-ready line. */
export function shellLine(entry: StdioServerEntry): string {
  return [entry.command, ...entry.args].map(shellQuote).join(" ");
}
