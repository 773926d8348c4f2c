import type { ResultRecord } from "./record.js";

/** One distinct cause of the system errors of a run: the code, its whole message, and the attempts it hit. */
export interface FailureCause {
  code: string;
  message: string;
  /** The keys of the attempts that ended with it, sorted (records are in the order attempts finished). */
  keys: string[];
}

/** The error records grouped by their code and message, the most frequent cause first (ties in order of appearance). */
export function failureCauses(records: readonly ResultRecord[]): FailureCause[] {
  const causes = new Map<string, FailureCause>();
  for (const r of records) {
    if (r.status !== "error") continue;
    const code = r.error?.code ?? "ERROR";
    const message = r.error?.message ?? "";
    const id = JSON.stringify([code, message]);
    const cause = causes.get(id) ?? { code, message, keys: [] };
    cause.keys.push(r.key);
    causes.set(id, cause);
  }
  for (const c of causes.values()) c.keys.sort();
  return [...causes.values()].sort((a, b) => b.keys.length - a.keys.length || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
}

/** Attempt keys as a short list: the first few, then how many more. */
function keysText(keys: readonly string[], shown = 5): string {
  const more = keys.length - shown;
  return `${keys.slice(0, shown).join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}

/** A cause on one line: code, how many attempts and which, then the whole message. */
export function causeLine(c: FailureCause): string {
  return `${c.code} ×${c.keys.length} (${keysText(c.keys)}): ${c.message}`;
}
