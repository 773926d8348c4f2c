/**
 * Runs `work` over `items` with at most `limit` in flight and yields results as they complete
 * (not in input order). Errors thrown by `work` propagate.
 */
export async function* mapPool<T, R>(
  items: Iterable<T>,
  limit: number,
  work: (item: T) => Promise<R>,
): AsyncGenerator<R, void, undefined> {
  const iterator = items[Symbol.iterator]();
  const running = new Map<number, Promise<{ key: number; value: R }>>();
  let nextKey = 0;
  const launch = (): boolean => {
    const step = iterator.next();
    if (step.done) return false;
    const key = nextKey++;
    running.set(
      key,
      work(step.value).then((value) => ({ key, value })),
    );
    return true;
  };
  for (let i = 0; i < Math.max(1, limit) && launch(); i++);
  while (running.size > 0) {
    const { key, value } = await Promise.race(running.values());
    running.delete(key);
    launch();
    yield value;
  }
}
