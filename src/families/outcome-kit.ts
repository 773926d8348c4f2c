import type { OutcomeBlock } from "./definition.js";

/**
 * Small readers the families' outcome views share: the values they read come from results and
 * trajectory files (any JSON), so each is checked where it is read and a missing one is left out.
 */

export type Json = Record<string, unknown>;

/** The value as an object, or null. */
export const obj = (v: unknown): Json | null => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : null);
/** The value as an array (of anything), or an empty one. */
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** The value as a string, or null. */
export const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
/** The value as a number, or null. */
export const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
/** A yes/no/unknown value in words. */
export const yesNo = (v: unknown): string => (v === true ? "yes" : v === false ? "no" : "–");
/** The tone of a yes/no cell: yes is good, no is bad. */
export const toneOf = (v: unknown): "good" | "bad" | null => (v === true ? "good" : v === false ? "bad" : null);
/** Seconds with one decimal. */
export const seconds = (v: unknown): string => (num(v) === null ? "–" : `${(num(v) as number).toFixed(1)} s`);
/** The first line of a text. */
export const subject = (text: string): string => text.split("\n")[0] ?? "";

/** A table block of label/value rows, leaving out rows whose value is unknown. */
export function facts(rows: [string, unknown][]): OutcomeBlock {
  const kept = rows.filter(([, v]) => v !== undefined && v !== null);
  return { kind: "table", head: ["", ""], rows: kept.map(([k, v]) => [k, typeof v === "boolean" ? yesNo(v) : String(v)]), tones: kept.map(([, v]) => [null, toneOf(v)]) };
}
