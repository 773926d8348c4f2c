/**
 * One check of a conformance suite: a name, and a function that throws when the plug-in fails it. `skip`
 * says why the check does not apply here (null: it does). Run them with any test runner; with vitest:
 * `for (const c of checks) it.skipIf(c.skip !== null)(c.name, c.run)`.
 */
export interface ConformanceCheck {
  name: string;
  skip: string | null;
  /** Runs the check; rejects with a conformance failure saying what was expected and what was seen. */
  run(): Promise<void>;
}

/** Throws a conformance failure: what the check expected, and what it saw. */
export function fail(what: string): never {
  throw new Error(`conformance: ${what}`);
}
