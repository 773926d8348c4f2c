// gitgood/mcp: the MCP front end. Kept out of the root entry point so that `import "gitgood"` never
// loads @modelcontextprotocol/sdk.
export { Workbench, type WorkbenchOptions, type WorkbenchSource } from "./workbench.js";
export type { CallOutcome, TaskResource } from "./workbench.js";
export type { Bench } from "./bench-tools.js";
export type { ClientInfo } from "./attempt.js";
export type { OfferedTool } from "./descriptors.js";
export type { Recorder } from "./attempt.js";
export type { PriceOf } from "../model/prices.js";
export { createMcpServer } from "./server.js";
export { serveStdio, type StdioServeOptions } from "./stdio.js";
export { serveHttp, type HttpServeOptions, type HttpHandle } from "./http.js";
export { McpCommandAgent } from "../agents/mcp-command.js";
