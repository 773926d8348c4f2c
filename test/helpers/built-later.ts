/**
 * An object that stands for one a `beforeAll` hook builds, so that a test file can name it at its top: reading a
 * property of it reads that property of `built()`, when a test or a later hook reads it (only reading is passed
 * on: it has no keys of its own to list or spread). Before the hook has built it (`built()` gives undefined), a
 * read throws, naming `what` it stands for.
 */
export function builtLater<T extends object>(built: () => T | undefined, what: string): T {
  const ready = (): T => {
    const value = built();
    if (value === undefined) throw new Error(`${what}: not built yet (a beforeAll hook builds it); use it in a test or a later hook`);
    return value;
  };
  return new Proxy({} as T, { get: (_, key) => Reflect.get(ready(), key) as unknown });
}
