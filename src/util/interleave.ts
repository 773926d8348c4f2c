import { at } from "./at.js";

/**
 * Drains several async sources, at most `limit` at a time, yielding their items as they arrive. The
 * first error of any source is thrown once the running sources have stopped.
 */
export async function* interleave<T>(
  sources: readonly (() => AsyncIterable<T>)[],
  limit: number,
): AsyncGenerator<T, void, undefined> {
  const queue: T[] = [];
  let wake: (() => void) | null = null;
  const state: { failure: { error: unknown } | null } = { failure: null };
  let next = 0;
  let running = 0;
  const notify = (): void => {
    const w = wake;
    wake = null;
    w?.();
  };
  const start = (): void => {
    while (running < Math.max(1, limit) && next < sources.length && !state.failure) {
      const source = sources[next++] as () => AsyncIterable<T>;
      running++;
      void (async () => {
        try {
          for await (const item of source()) {
            queue.push(item);
            notify();
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
  start();
  for (;;) {
    const item = queue.shift();
    if (item !== undefined) {
      yield item;
      continue;
    }
    if (running === 0 && (next >= sources.length || state.failure)) break;
    await new Promise<void>((resolve) => (wake = resolve));
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
