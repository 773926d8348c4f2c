import { GitGoodError } from "../errors.js";

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

export { intOption, positiveIntOption } from "../util/options.js";

/** Parses a number option in [min, max]. */
export function numberOption(name: string, min: number, max: number): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (value.trim() === "" || !Number.isFinite(n) || n < min || n > max) {
      throw new GitGoodError("BAD_OPTION", `${name} takes a number from ${min} to ${max}, not '${value}'`);
    }
    return n;
  };
}

/** Parses a comma-separated list of names, as written: model names such as `Qwen/Qwen2.5-72B-Instruct` keep their case. */
export function listOption(value: string): string[] {
  return value
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
}

/** Parses a comma-separated list of case-insensitive keywords (languages), lower-cased. */
export function keywordListOption(value: string): string[] {
  return listOption(value).map((v) => v.toLowerCase());
}
