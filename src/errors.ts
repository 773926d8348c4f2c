/**
 * Errors that reach a user or an agent. Every error has a stable string `code` (safe to match on in
 * scripts and in results files) and a `data` payload with the facts behind the message.
 */
export class GitGoodError extends Error {
  readonly code: string;
  readonly data: Record<string, unknown>;

  constructor(code: string, message: string, data: Record<string, unknown> = {}) {
    super(message);
    this.name = "GitGoodError";
    this.code = code;
    this.data = data;
  }

  toJSON(): { code: string; message: string; data: Record<string, unknown> } {
    return { code: this.code, message: this.message, data: this.data };
  }
}

export function isGitGoodError(value: unknown): value is GitGoodError {
  return value instanceof GitGoodError;
}

/** Turns anything thrown into a GitGoodError, keeping the original message. */
export function toGitGoodError(value: unknown, code = "INTERNAL"): GitGoodError {
  if (value instanceof GitGoodError) return value;
  const message = value instanceof Error ? value.message : String(value);
  return new GitGoodError(code, message);
}
