/**
 * log.md, the fine-grained trace of a memory branch: timestamped observation / thought / action
 * records appended between commits. Each record is written with one append (O_APPEND), so records of
 * two processes never interleave inside each other.
 */

export interface TraceRecord {
  observation?: string;
  thought?: string;
  action?: string;
  /** Free text when the record is not split into the three parts. */
  note?: string;
}

export function renderTraceHeader(branch: string): string {
  return `# Trace of memory branch \`${branch}\`\n`;
}

function item(label: string, text: string | undefined): string[] {
  if (text === undefined || text.trim() === "") return [];
  const [first = "", ...rest] = text.trim().split("\n");
  return [`- ${label}: ${first}`, ...rest.map((l) => `  ${l}`)];
}

export function hasContent(r: TraceRecord): boolean {
  return [r.observation, r.thought, r.action, r.note].some((t) => t !== undefined && t.trim() !== "");
}

export function renderTraceRecord(r: TraceRecord, timestamp: string): string {
  const lines = [
    `### ${timestamp}`,
    ...item("observation", r.observation),
    ...item("thought", r.thought),
    ...item("action", r.action),
    ...item("note", r.note),
  ];
  return `\n${lines.join("\n")}\n`;
}

/**
 * The part of another branch's trace to carry over in a merge: what was added since the merge base
 * (the whole trace when the base had none, or when the trace was rewritten since).
 */
export function newTrace(theirs: string, atBase: string | null): string {
  if (atBase && theirs.startsWith(atBase)) return theirs.slice(atBase.length);
  return theirs.replace(/^# Trace of memory branch .*\n/, "");
}

export function renderMergedTrace(from: string, timestamp: string, text: string): string {
  const body = text.replace(/^\n+/, "").replace(/\n*$/, "");
  return `\n## Trace merged from \`${from}\` (${timestamp})\n\n${body || "(no new records)"}\n`;
}
