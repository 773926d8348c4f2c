import type { Report, SampleRow } from "./summary.js";

/**
 * The columns of the CSV export, in order: the report's per-attempt fields. What the JSON report gives as
 * null (usage a record does not say, a cost without a price) is an empty field, never 0.
 */
export const CSV_COLUMNS = [
  "agent",
  "key",
  "sample_id",
  "scenario",
  "difficulty",
  "repository",
  "language",
  "repeat",
  "status",
  "verdict",
  "resolvable",
  "tree_matches",
  "turns",
  "tool_calls",
  "tokens",
  "prompt_tokens",
  "completion_tokens",
  "cost_usd",
  "judge_tokens",
  "judge_cost_usd",
  "cache_hits",
  "history_probes",
  "duration_ms",
  "error",
  "trajectory",
] as const satisfies readonly (keyof SampleRow)[];

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. Text a spreadsheet would
 * run as a formula (starting with =, +, -, @, tab or carriage return) gets a leading apostrophe: sample
 * ids and error messages come from repositories and agents.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = typeof value === "string" ? value : String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A run's attempts as CSV: a header line, then one line per attempt, CRLF line ends (RFC 4180). */
export function reportCsv(report: Report): string {
  const lines = [CSV_COLUMNS.join(",")];
  for (const row of report.samples) lines.push(CSV_COLUMNS.map((c) => csvField(row[c])).join(","));
  return `${lines.join("\r\n")}\r\n`;
}
