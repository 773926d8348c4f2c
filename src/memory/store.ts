import path from "node:path";
import { GitGoodError } from "../errors.js";
import { appendItems, MILESTONES, TODO } from "./roadmap.js";
import { parseCommitLog, renderEntry, type CommitLog, type Entry } from "./entries.js";
import { readText, writeText } from "./files.js";
import { factsFromFiles, refreshMetadata } from "./metadata.js";
import { MAIN_FILE, type BranchFile, type MemoryWorkspace } from "./memory-workspace.js";

/**
 * Reads memory files either from the work tree (the checked-out branch, with changes not yet
 * committed) or from a git revision (any other branch, or a past memory state).
 */
interface MemorySource {
  /** The revision read from, or null for the work tree. */
  rev: string | null;
  read(rel: string): Promise<string | null>;
}

export function worktreeSource(ws: MemoryWorkspace): MemorySource {
  return { rev: null, read: async (rel) => readText(ws.root, path.join(ws.root, ...rel.split("/"))) };
}

export function revisionSource(ws: MemoryWorkspace, rev: string): MemorySource {
  return { rev, read: (rel) => ws.git.readAt(rev, rel) };
}

/** Where to read a memory branch from: the work tree when it is checked out, else its git branch. */
export async function branchSource(ws: MemoryWorkspace, branch: string): Promise<MemorySource> {
  if ((await ws.git.currentBranch()) === branch) return worktreeSource(ws);
  if (!(await ws.git.branchExists(branch))) {
    throw new GitGoodError("UNKNOWN_BRANCH", `there is no branch '${branch}'`, { branch });
  }
  return revisionSource(ws, `refs/heads/${branch}`);
}

export async function readBranchFile(
  ws: MemoryWorkspace,
  src: MemorySource,
  branch: string,
  file: BranchFile,
): Promise<string> {
  const text = await src.read(ws.branchRel(branch, file));
  if (text === null) {
    const where = src.rev ? `branch '${branch}'` : "the work tree";
    throw new GitGoodError(
      "NO_MEMORY_BRANCH",
      `'${branch}' has no memory branch (${ws.branchRel(branch, file)} is missing in ${where})`,
      { branch, file },
    );
  }
  return text;
}

export async function readCommitLog(ws: MemoryWorkspace, src: MemorySource, branch: string): Promise<CommitLog> {
  return parseCommitLog(await readBranchFile(ws, src, branch, "commit.md"), branch, ws.branchRel(branch, "commit.md"));
}

/** Appends an entry to the checked-out branch's commit.md. */
export function appendEntry(ws: MemoryWorkspace, branch: string, entry: Omit<Entry, "raw">): void {
  const file = ws.branchAbs(branch, "commit.md");
  const text = readText(ws.root, file) ?? "";
  writeText(ws.root, file, `${text.replace(/\n*$/, "\n")}${renderEntry(entry)}`);
}

/** Adds milestones and to-do items to main.md. */
export function updateRoadmap(ws: MemoryWorkspace, milestones: readonly string[], todos: readonly string[]): void {
  if (milestones.length === 0 && todos.length === 0) return;
  const file = ws.abs(MAIN_FILE);
  let text = readText(ws.root, file) ?? "";
  text = appendItems(text, MILESTONES, milestones);
  text = appendItems(text, TODO, todos);
  writeText(ws.root, file, text);
}

/** Rewrites the derived segments of a branch's metadata.yaml from the files git tracks now. */
export async function refreshBranchMetadata(ws: MemoryWorkspace, branch: string, base?: string | null): Promise<void> {
  const file = ws.branchAbs(branch, "metadata.yaml");
  const facts = factsFromFiles(await ws.git.trackedFiles(), ws.memoryDir);
  const current = readText(ws.root, file) ?? base ?? null;
  writeText(ws.root, file, refreshMetadata(current, ws.branchRel(branch, "metadata.yaml"), facts));
}

export function memoryTrailers(branch: string, entry: number | null, extra: Record<string, string> = {}): string {
  const lines = [`Memory-Branch: ${branch}`];
  if (entry !== null) lines.push(`Memory-Entry: ${entry}`);
  for (const [k, v] of Object.entries(extra)) lines.push(`${k}: ${v}`);
  return lines.join("\n");
}
