import { GitGoodError } from "../errors.js";

/**
 * commit.md, one file per memory branch: a header with the branch's purpose, then one entry per
 * COMMIT. Each entry has three parts: the branch purpose, the running summary of progress so far, and
 * what this commit contributed.
 */

export interface Entry {
  n: number;
  date: string;
  /** For merge entries: `merge of <branch>`. */
  note: string | null;
  purpose: string;
  summary: string;
  contribution: string;
  /** The entry exactly as it stands in the file. */
  raw: string;
}

export interface CommitLog {
  branch: string;
  purpose: string;
  entries: Entry[];
}

const ENTRY_HEADING = /^## Commit (\d+) · (\S+)(?: · (.+))?$/;
const PARTS = { purpose: "### Branch purpose", summary: "### Progress so far", contribution: "### This commit" } as const;
const RESERVED = /^(## Commit \d+ · |## Purpose$|### (Branch purpose|Progress so far|This commit)$)/;

/** Keeps user text from being read back as structure: a line that looks like ours gets a backslash. */
export function escapeText(text: string): string {
  return text
    .trim()
    .split("\n")
    .map((l) => (RESERVED.test(l) ? `\\${l}` : l))
    .join("\n");
}

function unescapeText(text: string): string {
  return text
    .split("\n")
    .map((l) => (l.startsWith("\\") && RESERVED.test(l.slice(1)) ? l.slice(1) : l))
    .join("\n");
}

export function renderHeader(branch: string, purpose: string): string {
  return `# Memory branch \`${branch}\`\n\n## Purpose\n\n${escapeText(purpose) || "(not stated)"}\n`;
}

export function renderEntry(e: Omit<Entry, "raw">): string {
  const heading = `## Commit ${e.n} · ${e.date}${e.note ? ` · ${e.note.replace(/\n/g, " ")}` : ""}`;
  return [
    "",
    heading,
    "",
    PARTS.purpose,
    "",
    escapeText(e.purpose) || "(not stated)",
    "",
    PARTS.summary,
    "",
    escapeText(e.summary) || "(none)",
    "",
    PARTS.contribution,
    "",
    escapeText(e.contribution) || "(none)",
    "",
  ].join("\n");
}

function part(lines: readonly string[], title: string): string {
  const at = lines.findIndex((l) => l === title);
  if (at < 0) return "";
  let end = lines.length;
  for (let i = at + 1; i < lines.length; i++) {
    if (Object.values(PARTS).includes(lines[i] as never)) {
      end = i;
      break;
    }
  }
  return unescapeText(lines.slice(at + 1, end).join("\n").trim());
}

function damaged(file: string, why: string): GitGoodError {
  return new GitGoodError(
    "BAD_COMMIT_LOG",
    `${file} is damaged (${why}); put it back with git or 'gitgood memory restore', then try again`,
    { file },
  );
}

/**
 * Reads commit.md. A file that is not one gitgood wrote (no `# Memory branch` title or `## Purpose`),
 * or whose entries are not numbered 1, 2, 3 … in order, or an entry that lacks one of its three parts,
 * is refused with BAD_COMMIT_LOG naming `file`: numbering on from a damaged file would reuse entry
 * numbers that memory commits already name.
 */
export function parseCommitLog(text: string, branch: string, file: string): CommitLog {
  const lines = text.split("\n");
  const starts: number[] = [];
  lines.forEach((l, i) => {
    if (ENTRY_HEADING.test(l)) starts.push(i);
  });
  const headEnd = starts[0] ?? lines.length;
  const head = lines.slice(0, headEnd);
  const pAt = head.findIndex((l) => l === "## Purpose");
  if (!(lines[0] ?? "").startsWith("# Memory branch ")) throw damaged(file, "it does not start with its '# Memory branch' title");
  if (pAt < 0) throw damaged(file, "its '## Purpose' section is missing");
  const purpose = unescapeText(head.slice(pAt + 1).join("\n").trim());
  const entries: Entry[] = starts.map((start, k) => {
    const end = starts[k + 1] ?? lines.length;
    const body = lines.slice(start, end);
    const m = ENTRY_HEADING.exec(body[0] ?? "");
    return {
      n: Number(m?.[1] ?? 0),
      date: m?.[2] ?? "",
      note: m?.[3] ?? null,
      purpose: part(body, PARTS.purpose),
      summary: part(body, PARTS.summary),
      contribution: part(body, PARTS.contribution),
      raw: body.join("\n").trim(),
    };
  });
  entries.forEach((e, k) => {
    if (e.n !== k + 1) throw damaged(file, `entry #${e.n} stands where entry #${k + 1} belongs`);
    for (const title of Object.values(PARTS)) {
      if (!e.raw.split("\n").includes(title)) throw damaged(file, `entry #${e.n} lacks its '${title}' part`);
    }
  });
  return { branch, purpose, entries };
}

export function nextEntryNumber(log: CommitLog): number {
  return log.entries.reduce((max, e) => Math.max(max, e.n), 0) + 1;
}

export function lastEntry(log: CommitLog): Entry | undefined {
  return log.entries[log.entries.length - 1];
}

/** The running summary after a contribution: given, or the previous summary followed by it. */
export function nextSummary(log: CommitLog, contribution: string, given?: string): string {
  if (given !== undefined && given.trim() !== "") return given.trim();
  const prev = lastEntry(log)?.summary.trim() ?? "";
  return prev && prev !== "(none)" ? `${prev}\n${contribution.trim()}` : contribution.trim();
}
