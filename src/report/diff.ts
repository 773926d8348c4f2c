import type { FormatRun } from "../families/definition.js";
import type { ResultRecord } from "../runs/record.js";

/*
 * A run diff (`gitgood report A B --diff`): the attempts whose verdict flipped between two runs, with the
 * failure labels each side got, and how often each label was given in each run.
 */

export interface Flip {
  key: string;
  sample_id: string;
  scenario: string;
  /** The labels the failing side got ([] on the solved side). */
  labels_a: string[];
  labels_b: string[];
}

export interface LabelChange {
  label: string;
  a: number;
  b: number;
}

export interface RunDiff {
  a: string;
  b: string;
  /** Solved in A, failed in B. */
  lost: Flip[];
  /** Failed in A, solved in B. */
  gained: Flip[];
  /** Every label given in either run, with its count in each; largest change first. */
  labels: LabelChange[];
}

/** An attempt's identity across runs: the key, without the agent (two runs of different agents compare). */
const idOf = (r: ResultRecord): string => r.key;

function countLabels(records: readonly ResultRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of records) for (const l of r.failure_labels ?? []) counts.set(l, (counts.get(l) ?? 0) + 1);
  return counts;
}

/** The diff of two runs: attempts both ran whose verdict went from solved to failed, or back. */
export function runDiff(a: FormatRun, b: FormatRun): RunDiff {
  const inB = new Map(b.records.map((r) => [idOf(r), r]));
  const lost: Flip[] = [];
  const gained: Flip[] = [];
  for (const ra of a.records) {
    const rb = inB.get(idOf(ra));
    if (!rb) continue;
    const flip = { key: ra.key, sample_id: ra.sample_id, scenario: ra.scenario, labels_a: ra.failure_labels ?? [], labels_b: rb.failure_labels ?? [] };
    if (ra.solved === true && rb.solved === false) lost.push(flip);
    else if (ra.solved === false && rb.solved === true) gained.push(flip);
  }
  const ca = countLabels(a.records);
  const cb = countLabels(b.records);
  const labels = [...new Set([...ca.keys(), ...cb.keys()])]
    .map((label) => ({ label, a: ca.get(label) ?? 0, b: cb.get(label) ?? 0 }))
    .sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a) || (x.label < y.label ? -1 : 1));
  return { a: a.label, b: b.label, lost, gained, labels };
}

const labelList = (labels: readonly string[]): string => (labels.length > 0 ? labels.join(", ") : "(no labels: older record)");

/** The diff as text. */
export function formatRunDiff(d: RunDiff): string {
  const out = [`Run diff: A = ${d.a}, B = ${d.b}`, `Solved in A, not in B (${d.lost.length}):`];
  for (const f of d.lost) out.push(`  ${f.key}  B: ${labelList(f.labels_b)}`);
  out.push(`Solved in B, not in A (${d.gained.length}):`);
  for (const f of d.gained) out.push(`  ${f.key}  A: ${labelList(f.labels_a)}`);
  out.push("Failure labels (A → B):");
  if (d.labels.length === 0) out.push("  (none in either run)");
  for (const l of d.labels) {
    const change = l.b - l.a;
    out.push(`  ${l.label.padEnd(27)} ${l.a} → ${l.b}  ${change > 0 ? `grew by ${change}` : change < 0 ? `shrank by ${-change}` : "same"}`);
  }
  return `${out.join("\n")}\n`;
}
