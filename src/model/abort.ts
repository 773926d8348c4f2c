import { GitGoodError } from "../errors.js";

/** The error every model request rejects with once its signal is aborted. */
export function abortedError(model: string): GitGoodError {
  return new GitGoodError("ABORTED", `model ${model}: request aborted`, { model });
}

/** Settles like `work`, or rejects with ABORTED as soon as `signal` is aborted, whichever comes first. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined, model: string): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(abortedError(model));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortedError(model));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(signal.aborted ? abortedError(model) : err);
      },
    );
  });
}

/** Waits `ms`, or rejects with ABORTED as soon as `signal` is aborted (the timer is cleared). */
export function sleep(ms: number, signal: AbortSignal | undefined, model: string): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedError(model));
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedError(model));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * A signal of its own for one request, aborted with `signal`: what a library hangs on it (the OpenAI SDK
 * adds an abort listener per request and never takes it off) goes with it, and `release` takes the one
 * link to `signal` off again. Without it a sample's long-lived signal gathers a listener per request
 * and retry (Node's MaxListenersExceededWarning).
 */
export function requestSignal(signal: AbortSignal | undefined): { signal: AbortSignal | undefined; release: () => void } {
  if (!signal) return { signal: undefined, release: () => undefined };
  const own = new AbortController();
  if (signal.aborted) {
    own.abort(signal.reason);
    return { signal: own.signal, release: () => undefined };
  }
  const forward = (): void => own.abort(signal.reason);
  signal.addEventListener("abort", forward, { once: true });
  return { signal: own.signal, release: () => signal.removeEventListener("abort", forward) };
}
