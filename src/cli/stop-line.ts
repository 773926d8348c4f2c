import type { CliIO } from "./io.js";

/** The exit status of a process stopped by each signal, as a shell reports it. */
const STOP_SIGNALS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

/**
 * Until the returned function is called, a stop by SIGINT, SIGTERM or SIGHUP first writes `line(signal)`
 * as one line on stderr, then exits with the signal's status (the exit handlers still remove temporary
 * files and locks). The handler runs before any other of the signal's, which may exit at once. Only a
 * process of its own (`io.ownsProcess`) is handled; otherwise nothing is installed.
 */
export function sayOnStop(io: CliIO, line: (signal: keyof typeof STOP_SIGNALS) => string): () => void {
  if (io.ownsProcess !== true) return () => undefined;
  const handlers = (Object.keys(STOP_SIGNALS) as (keyof typeof STOP_SIGNALS)[]).map((signal) => {
    const handler = (): void => {
      // A write to stderr is synchronous for files, pipes and terminals on Linux: it is out before the exit.
      io.stderr.write(`${line(signal)}\n`);
      process.exit(STOP_SIGNALS[signal]);
    };
    process.prependListener(signal, handler);
    return [signal, handler] as const;
  });
  return () => {
    for (const [signal, handler] of handlers) process.removeListener(signal, handler);
  };
}
