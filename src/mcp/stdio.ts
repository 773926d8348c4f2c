import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer } from "./server.js";
import type { Workbench } from "./workbench.js";

/** The workbench a stdio server serves, where it reads and writes its messages, and what else ends it. */
export interface StdioServeOptions {
  /** The workbench the client's tool calls act on. */
  bench: Workbench;
  /** The client's messages, one JSON line each (default: this process's standard input). */
  input?: Readable;
  /** Where the replies go (default: this process's standard output). */
  output?: Writable;
  /** Aborting it ends the connection as the end of the input does. */
  signal?: AbortSignal;
}

/**
 * Serves one workbench over a pair of streams until the client goes away (the input ends, or the output
 * breaks) or `signal` aborts; then the open scenario, if any, is settled.
 */
export async function serveStdio(opts: StdioServeOptions): Promise<void> {
  const { bench } = opts;
  const input = opts.input ?? process.stdin;
  const output = opts.output ?? process.stdout;
  const server = createMcpServer(bench, "stdio");
  let ended!: () => void;
  const gone = new Promise<void>((resolve) => (ended = resolve));
  // The SDK's stdio transport does not notice the end of its input; the connection ends there.
  input.once("end", ended);
  input.once("close", ended);
  output.on("error", ended);
  opts.signal?.addEventListener("abort", ended, { once: true });
  if (opts.signal?.aborted) ended();
  server.onclose = ended;
  try {
    await server.connect(new StdioServerTransport(input, output));
    await gone;
    await bench.close();
    // The replies to the last calls are written in the turns after those calls settle: let them out first.
    await new Promise((resolve) => setImmediate(resolve));
    await server.close().catch(() => undefined);
  } finally {
    input.off("end", ended);
    input.off("close", ended);
    output.off("error", ended);
    opts.signal?.removeEventListener("abort", ended);
  }
}
