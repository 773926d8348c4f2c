import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer } from "./server.js";
import type { Workbench } from "./workbench.js";

/**
 * Serves one workbench over this process's standard input and output until the client goes away
 * (standard input ends, or standard output breaks); then the open scenario, if any, is settled.
 */
export async function serveStdio(bench: Workbench): Promise<void> {
  const server = createMcpServer(bench, "stdio");
  let ended!: () => void;
  const gone = new Promise<void>((resolve) => (ended = resolve));
  // The SDK's stdio transport does not notice the end of its input; the connection ends there.
  process.stdin.once("end", ended);
  process.stdin.once("close", ended);
  process.stdout.on("error", ended);
  server.onclose = ended;
  await server.connect(new StdioServerTransport());
  await gone;
  await bench.close();
  await server.close().catch(() => undefined);
}
