/**
 * An object that stands for one a `beforeAll` hook builds, so that a test file can name it at its top: each
 * property is read from `built()` when a test or a later hook uses it. Before the hook has built it (`built()`
 * gives undefined), any use throws, saying `what` it is.
 */
export function builtLater<T extends object>(built: () => T | undefined, what: string): T {
  const ready = (): T => {
    const value = built();
    if (value === undefined) throw new Error(`${what} are built in beforeAll: use them in a test or a later hook`);
    return value;
  };
  return new Proxy({} as T, { get: (_, key) => Reflect.get(ready(), key) as unknown });
}
