/**
 * Names the tool socket of the run's attempt for the agent program (`gitgood tool` and `gitgood mcp
 * --tool-socket` use it). A module of its own: `gitgood tool` reads it on every call and imports nothing else here.
 */
export const TOOL_SOCKET_ENV = "GITGOOD_TOOL_SOCKET";
