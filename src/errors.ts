import { ERROR_CODES, type ErrorCode, type Fault } from "./errors/codes.js";

export { ERROR_CODES, FAULTS, type ErrorCode, type Fault } from "./errors/codes.js";

/**
 * Errors that reach a user or an agent. Every error has a stable string `code` (safe to match on in
 * scripts and in results files), declared with its fault in src/errors/codes.ts, and a `data`
 * payload with the facts behind the message.
 */
export class GitGoodError extends Error {
  readonly code: ErrorCode;
  readonly data: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, data: Record<string, unknown> = {}) {
    super(message);
    this.name = "GitGoodError";
    this.code = code;
    this.data = data;
  }

  /** The error as JSON writes it: its code, message and data (a run's `error` field, a CLI's `--json` output). */
  toJSON(): { code: ErrorCode; message: string; data: Record<string, unknown> } {
    return { code: this.code, message: this.message, data: this.data };
  }
}

/** Whether `value` is a {@link GitGoodError} (an error with a stable code), as opposed to any other thrown value. */
export function isGitGoodError(value: unknown): value is GitGoodError {
  return value instanceof GitGoodError;
}

/** Whether a string (read from a results file or a tool result) is a code gitgood declares. */
export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}

/** Turns anything thrown into a GitGoodError, keeping the original message. */
export function toGitGoodError(value: unknown, code: ErrorCode = "INTERNAL"): GitGoodError {
  if (value instanceof GitGoodError) return value;
  const message = value instanceof Error ? value.message : String(value);
  return new GitGoodError(code, message);
}

/** Whose fault an error code is. A code gitgood does not declare (say, from another version's results) is internal. */
export function faultOf(code: string): Fault {
  return isErrorCode(code) ? ERROR_CODES[code].fault : "internal";
}

/** Commander's own errors, recognised without importing it (the library must not need the CLI's parser). */
function commanderExitCode(err: unknown): number | null {
  if (!(err instanceof Error)) return null;
  const { code, exitCode } = err as { code?: unknown; exitCode?: unknown };
  return typeof code === "string" && code.startsWith("commander.") && typeof exitCode === "number" ? exitCode : null;
}

/**
 * The exit code of a command stopped by `err`: 2 for wrong usage (a usage code, or commander's own
 * option and argument errors), 0 for commander's help and version, 1 for everything else.
 */
export function exitCodeFor(err: unknown): number {
  const commander = commanderExitCode(err);
  if (commander !== null) return commander === 0 ? 0 : 2;
  if (isGitGoodError(err)) return faultOf(err.code) === "usage" ? 2 : 1;
  return 1;
}
