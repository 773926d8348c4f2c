import { GitGoodError, toGitGoodError } from "../errors.js";
import { abortedError, requestSignal, sleep, untilAborted } from "./abort.js";

/** What every HTTP error of a model SDK carries (the OpenAI and Anthropic SDKs' `APIError`). */
interface HttpError extends Error {
  readonly status?: number | undefined;
  readonly headers?: Headers | undefined;
}

/**
 * The error classes of a model SDK that retries and messages tell apart. The OpenAI and the Anthropic
 * SDKs both export these three, under these names.
 */
export interface SdkErrors {
  APIError: abstract new (...args: never[]) => HttpError;
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
}

const BACKOFF_START_MS = 500;
const BACKOFF_MAX_MS = 8000;
/** A server's Retry-After beyond this is not waited for; the usual back-off applies instead. */
const RETRY_AFTER_MAX_MS = 60_000;

/**
 * Sends a request with `send`, retrying what is worth retrying (408/409/429/5xx, lost connections and
 * timeouts, with exponential back-off that honours Retry-After) up to `maxRetries` times. The SDK must
 * retry nothing itself, so an abort of `signal` stops the request at once, also while it waits to retry.
 * `send` is given a signal of its own per attempt (see `requestSignal`). Every failure is a GitGoodError.
 */
export async function withRetries<T>(
  errors: SdkErrors,
  model: string,
  send: (signal: AbortSignal | undefined) => Promise<T>,
  signal: AbortSignal | undefined,
  maxRetries: number,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const own = requestSignal(signal);
    try {
      return await untilAborted(send(own.signal), signal, model);
    } catch (err) {
      if (signal?.aborted) throw abortedError(model);
      if (err instanceof GitGoodError) throw err;
      const wait = attempt < maxRetries ? retryDelay(errors, err, attempt) : null;
      if (wait === null) throw modelError(errors, model, err);
      await sleep(wait, signal, model);
    } finally {
      own.release();
    }
  }
}

/** The whole prompt of a client's `check()` request: an endpoint (or a test's fake one) can tell it from real work. */
export const CHECK_PROMPT = "Reply with OK.";

/** Runs a client's preflight request; its error names the endpoint (never the key). */
export async function checkEndpoint(endpoint: string, request: () => Promise<unknown>): Promise<void> {
  try {
    await request();
  } catch (err) {
    const e = toGitGoodError(err, "MODEL_ERROR");
    throw new GitGoodError(e.code, `${e.message} (endpoint ${endpoint})`, e.data);
  }
}

/** How long to wait before retrying after `err`, or null when it is not worth retrying. */
function retryDelay(errors: SdkErrors, err: unknown, attempt: number): number | null {
  const backoff = Math.min(BACKOFF_START_MS * 2 ** attempt, BACKOFF_MAX_MS) * (1 - Math.random() * 0.25);
  if (err instanceof errors.APIConnectionError) return backoff;
  if (!(err instanceof errors.APIError)) return null;
  const says = err.headers?.get("x-should-retry");
  const status = err.status ?? 0;
  const retry = says === "true" || (says !== "false" && (status === 408 || status === 409 || status === 429 || status >= 500));
  if (!retry) return null;
  const asked = retryAfterMs(err.headers);
  return asked !== null && asked >= 0 && asked <= RETRY_AFTER_MAX_MS ? asked : backoff;
}

/** The wait a server asks for: `retry-after-ms`, else `retry-after` in seconds or as an HTTP date. */
function retryAfterMs(headers: Headers | undefined): number | null {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (!Number.isNaN(ms)) return ms;
  const after = headers?.get("retry-after");
  if (!after) return null;
  const seconds = Number.parseFloat(after);
  if (!Number.isNaN(seconds)) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : date - Date.now();
}

/** An SDK's error as one line with a code: time-out, unreachable, refused key, unknown model, rate limit, other. */
function modelError(errors: SdkErrors, model: string, err: unknown): GitGoodError {
  if (err instanceof errors.APIConnectionTimeoutError) {
    return new GitGoodError("MODEL_TIMEOUT", `model ${model} did not answer in time (after retries)`);
  }
  if (err instanceof errors.APIConnectionError) {
    return new GitGoodError("MODEL_UNREACHABLE", `cannot reach the model endpoint for ${model}: ${err.message}`);
  }
  if (err instanceof errors.APIError) {
    const code =
      err.status === 401 || err.status === 403
        ? "MODEL_AUTH"
        : err.status === 404
          ? "MODEL_NOT_FOUND"
          : err.status === 429
            ? "MODEL_RATE_LIMITED"
            : "MODEL_ERROR";
    const first = (err.message || "").split("\n")[0] ?? "";
    return new GitGoodError(code, `model ${model}: ${first}`, { status: err.status ?? null });
  }
  return new GitGoodError("MODEL_ERROR", `model ${model}: ${err instanceof Error ? err.message : String(err)}`);
}
