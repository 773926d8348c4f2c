import { abortedError } from "./abort.js";
import { checkOf, type ModelClient, type ModelReply, type ModelRequest } from "./types.js";

/** What holds model requests to a number in flight: this process's ConnectionLimit, or one shared by processes. */
export interface RequestLimit {
  /** Runs `work` when a connection is free; the connection is given back when it settles. */
  run<T>(work: () => Promise<T>, signal: AbortSignal | undefined, model: string): Promise<T>;
}

/**
 * At most `max` model requests in flight at once, shared by every client given it (the agent's and the
 * judges' of a run: `--max-connections`). Requests wait their turn in order; one aborted while it waits
 * leaves the queue at once with ABORTED.
 */
export class ConnectionLimit implements RequestLimit {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`a connection limit must be a whole number of at least 1, not ${max}`);
  }

  /** Runs `work` when a connection is free; the connection is given back when it settles. */
  async run<T>(work: () => Promise<T>, signal: AbortSignal | undefined, model: string): Promise<T> {
    await this.acquire(signal, model);
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(signal: AbortSignal | undefined, model: string): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortedError(model));
    if (this.active < this.max) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener("abort", onAbort);
        this.active++;
        resolve();
      };
      const onAbort = (): void => {
        const i = this.waiting.indexOf(grant);
        if (i !== -1) this.waiting.splice(i, 1);
        reject(abortedError(model));
      };
      this.waiting.push(grant);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  private release(): void {
    this.active--;
    this.waiting.shift()?.();
  }
}

/** A client whose requests take a connection of `limit` while they are sent (answers from a cache in front take none). */
export function withConnectionLimit(inner: ModelClient, limit: RequestLimit): ModelClient {
  return {
    model: inner.model,
    ...checkOf(inner),
    complete: (request: ModelRequest): Promise<ModelReply> => limit.run(() => inner.complete(request), request.signal, inner.model),
  };
}
