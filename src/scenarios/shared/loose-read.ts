/*
 * Reading a final state or a scorer's value without trusting its shape: older trajectories have fewer
 * fields, and failure labels must never throw on them.
 */

export type Loose = Readonly<Record<string, unknown>>;
export const isObj = (v: unknown): v is Loose => typeof v === "object" && v !== null && !Array.isArray(v);
export const field = (v: unknown, k: string): unknown => (isObj(v) ? v[k] : undefined);
export const num = (v: unknown): number => (typeof v === "number" ? v : 0);
export const arr = (v: unknown): readonly unknown[] => (Array.isArray(v) ? v : []);

/** Whether a final state reached its end (the merge committed, the history finished, the answer given). */
export function finishedState(final: unknown): boolean {
  return field(final, "done") === true && (field(final, "pending") ?? null) === null;
}
