import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { parametersSchema } from "../tools/schema.js";
import type { Tool, ToolResult } from "../tools/tool.js";

/** A tool as the server offers it: the registry's definition, and whether a changing call may destroy work. */
export interface OfferedTool {
  tool: Tool<unknown>;
  /** For a tool that changes state: true when it may rewrite or discard (a rebase, a commit); false when it only adds. */
  destructive: boolean;
}

/**
 * The MCP description of a registry tool: the same name, description and JSON schema the
 * function-calling adapter sends (derived from the one zod schema), with hints from `readOnly`.
 */
export function mcpTool(offered: OfferedTool): McpTool {
  const { tool } = offered;
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: parametersSchema(tool) as McpTool["inputSchema"],
    annotations: {
      readOnlyHint: tool.readOnly,
      destructiveHint: !tool.readOnly && offered.destructive,
      idempotentHint: tool.readOnly,
      openWorldHint: false,
    },
  };
}

/** A tool result as MCP content: the output verbatim, an error flagged as a tool error, and optional notes after it. */
export function callResult(result: ToolResult, notes: readonly string[] = []): CallToolResult {
  return {
    content: [
      { type: "text", text: result.output },
      ...notes.map((text) => ({ type: "text" as const, text })),
    ],
    isError: !result.ok,
  };
}
