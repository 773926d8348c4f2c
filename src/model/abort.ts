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
