import { at } from "./at.js";

/**
 * Drains several async sources, at most `limit` at a time, yielding their items as they arrive. The
 * first error of any source is thrown once the running sources have stopped. At most `buffered` items
 * wait for the consumer: a source that finds the queue full is not read on until there is room, so a
 * slow consumer slows the sources (a git process waits on its full pipe) instead of their items piling
 * up in memory. When the consumer stops early, the running sources are stopped too.
 */
export async function* interleave<T>(
  sources: readonly (() => AsyncIterable<T>)[],
  limit: number,
  buffered = 4 * Math.max(1, limit),
): AsyncGenerator<T, void, undefined> {
  const queue: T[] = [];
  let wake: (() => void) | null = null;
  /** Sources waiting for room in the queue. */
  const waiting: (() => void)[] = [];
  const state: { failure: { error: unknown } | null; closed: boolean } = { failure: null, closed: false };
  let next = 0;
  let running = 0;
  const notify = (): void => {
    const w = wake;
    wake = null;
    w?.();
  };
  const release = (): void => {
    for (const go of waiting.splice(0)) go();
  };
  const start = (): void => {
    while (running < Math.max(1, limit) && next < sources.length && !state.failure && !state.closed) {
      const source = sources[next++] as () => AsyncIterable<T>;
      running++;
      void (async () => {
        try {
          for await (const item of source()) {
            queue.push(item);
            notify();
            while (queue.length >= Math.max(1, buffered) && !state.closed) await new Promise<void>((go) => waiting.push(go));
            if (state.closed) break;
          }
        } catch (error) {
          state.failure ??= { error };
        } finally {
          running--;
          start();
          notify();
        }
      })();
    }
  };
  try {
    start();
    for (;;) {
      const item = queue.shift();
      if (item !== undefined) {
        release();
        yield item;
        continue;
      }
      if (running === 0 && (next >= sources.length || state.failure)) break;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    state.closed = true;
    release();
  }
  if (state.failure) throw state.failure.error;
}

/** Splits `items` into at most `parts` contiguous chunks of near-equal size (none empty). */
export function chunk<T>(items: readonly T[], parts: number): T[][] {
  const n = Math.max(1, Math.min(parts, items.length));
  const size = Math.ceil(items.length / n);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Deals `items` into at most `parts` groups like cards (item i to group i mod parts), so that work
 * whose cost drifts along the list (old history versus new) is spread evenly. None is empty.
 */
export function deal<T>(items: readonly T[], parts: number): T[][] {
  const n = Math.max(1, Math.min(parts, items.length));
  const out: T[][] = Array.from({ length: n }, () => []);
  items.forEach((item, i) => at(out, i % n).push(item));
  return items.length === 0 ? [] : out;
}
