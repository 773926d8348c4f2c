// gitgood/mcp: the MCP front end. Kept out of the root entry point so that `import "gitgood"` never
// loads @modelcontextprotocol/sdk.
export { Workbench, type WorkbenchOptions, type WorkbenchSource } from "./workbench.js";
export type { Recorder } from "./attempt.js";
export { createMcpServer } from "./server.js";
export { serveStdio, type StdioServeOptions } from "./stdio.js";
export { serveHttp, type HttpServeOptions, type HttpHandle } from "./http.js";
export { McpCommandAgent } from "../agents/mcp-command.js";
