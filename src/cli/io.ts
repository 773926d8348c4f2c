/** Something the CLI writes text to: a stream of the process, or a buffer of a caller in-process. */
export interface Sink {
  write(text: string): unknown;
  /** A terminal: progress redraws itself and help fits its width. */
  isTTY?: boolean;
  columns?: number;
}

/** Where one CLI call reads and writes: bin/gitgood.js passes the process's streams, tests pass buffers. */
export interface CliIO {
  stdout: Sink;
  stderr: Sink;
  /** Standard input ('gitgood tool --args -'). */
  stdin: AsyncIterable<string | Buffer>;
  /**
   * The call is the whole process (bin/gitgood.js): only then may a verb install signal handlers,
   * end the process, or serve over the process's own standard streams.
   */
  ownsProcess?: boolean;
  /** In-process, aborting it stops a serving verb ('gitgood mcp --http') as SIGTERM stops the process. */
  signal?: AbortSignal;
}

/** Reads a whole input to its end, as UTF-8 text. */
export async function readAll(input: AsyncIterable<string | Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
  return Buffer.concat(chunks).toString("utf8");
}

export { intOption, keywordListOption, listOption, numberOption, positiveIntOption } from "../util/options.js";
