import path from "node:path";
import { GitGoodError, isGitGoodError } from "../errors.js";
import { lastEntry, parseCommitLog, type CommitLog, type Entry } from "./entries.js";
import { segmentText } from "./metadata.js";
import { GOAL, MILESTONES, sectionText, TODO } from "./roadmap.js";
import { branchSource, readBranchFile, readCommitLog, revisionSource, worktreeSource } from "./store.js";
import { windowText } from "./window.js";
import { MAIN_FILE, type MemoryWorkspace } from "./memory-workspace.js";

const DEFAULT_ENTRIES = 10;
const DEFAULT_LINES = 20;

/** What CONTEXT shows: one memory branch, one whole entry, or the end of a branch's trace (none: the overview). */
export interface ContextQuery {
  /** Show this memory branch (purpose, running summary, recent entries). */
  branch?: string;
  /** Show one whole entry: its number on the branch, or a git revision of a memory commit. */
  commit?: string;
  /** Show the end of the branch's trace (log.md). */
  log?: boolean;
  /** Show one segment of the branch's metadata.yaml. */
  metadata?: string;
  /** Entries (branch view) or lines (log view) per window. */
  count?: number;
  /** How many of the newest entries or lines to skip: scrolls back in time. */
  skip?: number;
  /** Character offset into the rendered answer, to read past the character limit. */
  offset?: number;
  /** Character limit for this answer (at most the workspace's limit). */
  limit?: number;
}

/** CONTEXT: what the memory holds, as text for a prompt, never longer than the character limit. */
export async function memoryContext(ws: MemoryWorkspace, q: ContextQuery = {}): Promise<string> {
  ws.requireInitialized();
  const views = [q.commit !== undefined, q.log === true, q.metadata !== undefined].filter(Boolean).length;
  if (views > 1) throw new GitGoodError("BAD_INPUT", "ask for one of commit, log or metadata at a time");
  const limit = Math.min(q.limit ?? ws.contextLimit, ws.contextLimit);
  const text = await render(ws, q);
  return windowText(text, q.offset ?? 0, limit);
}

async function render(ws: MemoryWorkspace, q: ContextQuery): Promise<string> {
  const skip = Math.max(0, q.skip ?? 0);
  if (q.commit !== undefined) return renderCommit(ws, q.commit, q.branch);
  const branch = q.branch ?? (await ws.currentBranch());
  if (q.log) return renderTrace(ws, branch, q.count ?? DEFAULT_LINES, skip);
  if (q.metadata !== undefined) {
    const src = await branchSource(ws, branch);
    const file = ws.branchRel(branch, "metadata.yaml");
    return `# Metadata of \`${branch}\`: ${q.metadata}\n\n${segmentText(await readBranchFile(ws, src, branch, "metadata.yaml"), file, q.metadata)}`;
  }
  if (q.branch !== undefined) return renderBranch(ws, branch, q.count ?? DEFAULT_ENTRIES, skip);
  return renderOverview(ws);
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0] ?? "";
}

function describeLast(log: CommitLog): string {
  const e = lastEntry(log);
  if (!e) return "no commits yet";
  return `last #${e.n} (${e.date}${e.note ? `, ${e.note}` : ""}): ${firstLine(e.contribution)}`;
}

async function renderOverview(ws: MemoryWorkspace): Promise<string> {
  const current = await ws.currentBranch();
  const roadmap = (await worktreeSource(ws).read(ws.rel(MAIN_FILE))) ?? "";
  const out = [`# Memory overview: ${path.basename(ws.root)}, checked out on \`${current}\``, ""];
  for (const title of [GOAL, MILESTONES, TODO]) {
    out.push(`## ${title}`, "", sectionText(roadmap, title) || "(none)", "");
  }
  out.push("## Memory branches", "");
  const branches = await ws.git.branches();
  if (!branches.includes(current)) branches.unshift(current);
  for (const b of branches) {
    const src = b === current ? worktreeSource(ws) : revisionSource(ws, `refs/heads/${b}`);
    const file = ws.branchRel(b, "commit.md");
    const text = await src.read(file);
    if (text === null) continue;
    const mark = b === current ? " (checked out)" : "";
    let log: CommitLog;
    try {
      log = parseCommitLog(text, b, file);
    } catch (err) {
      if (!isGitGoodError(err)) throw err;
      out.push(`- \`${b}\`${mark}: ${err.message}`);
      continue;
    }
    out.push(`- \`${b}\`${mark}: ${firstLine(log.purpose)} — ${log.entries.length} commit(s); ${describeLast(log)}`);
  }
  const recent = await ws.git.recentCommits(ws.memoryDir, 5);
  if (recent.length > 0) {
    out.push("", "## Recent memory states (ids for diff and restore)", "");
    for (const c of recent) out.push(`- ${c.id} ${c.subject}`);
  }
  out.push("", "More: the branch view shows a branch's progress; the commit view shows one entry; the log view shows the trace.");
  return `${out.join("\n")}\n`;
}

async function renderBranch(ws: MemoryWorkspace, branch: string, count: number, skip: number): Promise<string> {
  const src = await branchSource(ws, branch);
  const log = await readCommitLog(ws, src, branch);
  const total = log.entries.length;
  const n = Math.max(1, count);
  const end = Math.max(0, total - skip);
  const start = Math.max(0, end - n);
  const shown = log.entries.slice(start, end);
  const last = lastEntry(log);
  const out = [
    `# Memory branch \`${branch}\`${src.rev ? "" : " (checked out)"}`,
    "",
    "## Purpose",
    "",
    log.purpose || "(not stated)",
    "",
    "## Progress so far",
    "",
    last?.summary || "(no commits yet)",
    "",
  ];
  if (total === 0) out.push("## Entries", "", "(none yet)");
  else if (shown.length === 0) out.push(`## Entries`, "", `(skip ${skip} passes all ${total} entries)`);
  else {
    out.push(`## Entries ${start + 1}-${end} of ${total}, oldest first`, "");
    for (const e of shown) out.push(e.raw, "");
  }
  const moves: string[] = [];
  if (start > 0) moves.push(`older entries with skip ${skip + n}`);
  if (skip > 0) moves.push(`newer entries with skip ${Math.max(0, skip - n)}`);
  if (moves.length > 0) out.push("", `[scroll: ${moves.join("; ")}]`);
  return `${out.join("\n")}\n`;
}

async function renderTrace(ws: MemoryWorkspace, branch: string, count: number, skip: number): Promise<string> {
  const src = await branchSource(ws, branch);
  const text = await readBranchFile(ws, src, branch, "log.md");
  const lines = text.replace(/\n$/, "").split("\n");
  const n = Math.max(1, count);
  const end = Math.max(0, lines.length - skip);
  const start = Math.max(0, end - n);
  const out = [`# Trace of \`${branch}\`: lines ${start + 1}-${end} of ${lines.length}`, "", ...lines.slice(start, end)];
  const moves: string[] = [];
  if (start > 0) moves.push(`older lines with skip ${skip + n}`);
  if (skip > 0) moves.push(`newer lines with skip ${Math.max(0, skip - n)}`);
  if (moves.length > 0) out.push("", `[scroll: ${moves.join("; ")}]`);
  return `${out.join("\n")}\n`;
}

function renderEntry(branch: string, e: Entry, where: string): string {
  return `# Entry #${e.n} of memory branch \`${branch}\`${where}\n\n${e.raw}\n`;
}

async function renderCommit(ws: MemoryWorkspace, id: string, branchOpt: string | undefined): Promise<string> {
  if (/^\d+$/.test(id)) {
    const branch = branchOpt ?? (await ws.currentBranch());
    const log = await readCommitLog(ws, await branchSource(ws, branch), branch);
    const e = log.entries.find((x) => x.n === Number(id));
    if (!e) {
      throw new GitGoodError("UNKNOWN_ENTRY", `memory branch '${branch}' has no entry #${id} (it has ${log.entries.length})`, {
        branch,
        entry: Number(id),
      });
    }
    return renderEntry(branch, e, "");
  }
  const oid = await ws.git.resolve(`${id}^{commit}`);
  if (!oid) throw new GitGoodError("UNKNOWN_REVISION", `'${id}' is neither an entry number nor a commit`, { id });
  const branch = await ws.git.trailer(oid, "Memory-Branch");
  const entry = await ws.git.trailer(oid, "Memory-Entry");
  if (!branch || !entry || entry === "0") {
    throw new GitGoodError("NOT_A_MEMORY_COMMIT", `commit ${oid.slice(0, 12)} did not record a memory entry`, { id: oid });
  }
  const log = await readCommitLog(ws, revisionSource(ws, oid), branch);
  const e = log.entries.find((x) => x.n === Number(entry));
  if (!e) throw new GitGoodError("UNKNOWN_ENTRY", `commit ${oid.slice(0, 12)} names entry #${entry}, which its commit.md lacks`);
  return renderEntry(branch, e, ` (commit ${oid.slice(0, 12)})`);
}
