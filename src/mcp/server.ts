import { createRequire } from "node:module";
// The low-level server: the tool list changes while a connection lives, schemas come from our own
// registry, and every failure must reach the client as a tool error (McpServer would answer an unknown
// tool with a protocol error and validate arguments with its own messages).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { isGitGoodError } from "../errors.js";
import { FINISH, GET_TASK, LIST_SAMPLES, START } from "./bench-tools.js";
import { callResult, mcpTool } from "./descriptors.js";
import type { Workbench } from "./workbench.js";

const pkg = createRequire(import.meta.url)("../../package.json") as { version: string };

function instructions(bench: Workbench): string {
  switch (bench.mode) {
    case "single":
    case "attached":
      return (
        `This server gives you one Git task in a sandbox repository. Call ${GET_TASK} first to read it, ` +
        `work through the scenario tools (each takes a short 'reason'), then call ${FINISH}.`
      );
    case "session":
      return (
        `This server works through a dataset of Git tasks. Call ${LIST_SAMPLES}, then ${START} with a sample id; ` +
        `the scenario's tools are then listed. Call ${FINISH} to have it scored, then start the next one.`
      );
    default:
      return "This server offers versioned agent memory operations on one workspace.";
  }
}

/** An MCP server (not yet connected) answering for one workbench. */
export function createMcpServer(bench: Workbench, transport: "stdio" | "http"): Server {
  const server = new Server(
    { name: "gitgood", version: pkg.version },
    {
      capabilities: { tools: { listChanged: true }, resources: { listChanged: true } },
      instructions: instructions(bench),
    },
  );
  server.oninitialized = () => {
    const v = server.getClientVersion();
    bench.client = { name: v?.name ?? "unknown", version: v?.version ?? "", transport };
  };
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: bench.offered().map(mcpTool) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const outcome = await bench.call(request.params.name, request.params.arguments ?? {});
    if (outcome.changed) {
      // Sent with the call's response, so HTTP clients get them without a separate stream.
      await extra.sendNotification({ method: "notifications/tools/list_changed" }).catch(() => undefined);
      await extra.sendNotification({ method: "notifications/resources/list_changed" }).catch(() => undefined);
    }
    return callResult(outcome.result, outcome.notes);
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: bench.resources() }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    try {
      return { contents: [bench.readResource(request.params.uri)] };
    } catch (err) {
      const message = isGitGoodError(err) ? err.message : String(err);
      throw new McpError(ErrorCode.InvalidParams, message);
    }
  });
  return server;
}
