import { spawnSync } from "node:child_process";
import path from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { CliIO, Sink } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/gitgood.js");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  input?: string;
  /** Variables set for the call ("" sets a variable empty, as a child process would see it). */
  env?: Record<string, string>;
}

/** Sets `env` on this process; returns the function that puts the previous values back. */
export function setEnv(env: Record<string, string> = {}): () => void {
  const previous = Object.keys(env).map((k) => [k, process.env[k]] as const);
  for (const [k, v] of Object.entries(env)) process.env[k] = v;
  return () => {
    for (const [k, v] of previous) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

/** A sink that keeps what is written; `onWrite` sees each piece as it comes. */
export function captureSink(onWrite?: (text: string) => void): Sink & { text: () => string } {
  const parts: string[] = [];
  return {
    write(text: string) {
      parts.push(text);
      onWrite?.(text);
      return true;
    },
    text: () => parts.join(""),
  };
}

/**
 * Runs `gitgood ARGS` in this process through `main(argv, io)`, capturing its output. The working
 * directory and `env` are this process's for the call (the library reads them), so calls must not
 * overlap. `run` is the entry to use (a freshly imported one stands for a new process).
 */
export async function gitgood(args: string[], opts: CliOptions = {}, run: typeof main = main): Promise<CliResult> {
  const stdout = captureSink();
  const stderr = captureSink();
  const io: CliIO = { stdout, stderr, stdin: Readable.from(opts.input === undefined ? [] : [Buffer.from(opts.input, "utf8")]) };
  const restoreEnv = setEnv(opts.env);
  const cwd = process.cwd();
  try {
    if (opts.cwd) process.chdir(opts.cwd);
    const code = await run(args, io);
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  } finally {
    process.chdir(cwd);
    restoreEnv();
  }
}

/** Runs the built CLI (`npm run build` first) as its own process: the smoke test of a verb. */
export function spawnGitgood(args: string[], opts: CliOptions = {}): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: opts.cwd,
    input: opts.input ?? "",
    encoding: "utf8",
    env: { ...process.env, ...opts.env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
