import { GitGoodError } from "../errors.js";
import { withLock } from "./memory-lock.js";
import type { MemoryWorkspace } from "./memory-workspace.js";

/** Name of the lock file in the git directory; every operation that writes memory holds it. */
const LOCK_NAME = "gitgood-memory.lock";

export async function locked<T>(ws: MemoryWorkspace, fn: () => Promise<T>): Promise<T> {
  return withLock(await ws.git.gitPath(LOCK_NAME), fn);
}

export async function refuseUnfinished(ws: MemoryWorkspace): Promise<void> {
  const op = await ws.git.operationInProgress();
  if (op) {
    throw new GitGoodError(
      "OPERATION_IN_PROGRESS",
      `a ${op} is in progress in ${ws.root}; finish or abort it with git before using memory`,
      { operation: op },
    );
  }
}

function inMemory(ws: MemoryWorkspace, file: string): boolean {
  return file === ws.memoryDir || file.startsWith(`${ws.memoryDir}/`);
}

/**
 * COMMIT records the work tree, never what someone staged: a memory commit must not carry staged work
 * into it (unrelated changes put aside with `git add`, or staged versions that differ from the work
 * tree), so an index with staged changes outside the memory folder is refused (memory files are ours).
 */
export async function refuseStaged(ws: MemoryWorkspace): Promise<void> {
  const staged = (await ws.git.status()).filter((e) => e.index !== " " && !inMemory(ws, e.path)).map((e) => e.path);
  if (staged.length > 0) {
    throw new GitGoodError(
      "DIRTY_INDEX",
      `the index holds staged changes (${list(staged)}); a memory commit records the work tree and never staged work — commit them with git or unstage them (git restore --staged) first; nothing was changed`,
      { files: staged },
    );
  }
}

/** MERGE needs a clean code state: uncommitted changes to tracked files outside memory are refused. */
export async function refuseDirtyCode(ws: MemoryWorkspace, what: string): Promise<void> {
  const dirty = (await ws.git.status()).filter((e) => !inMemory(ws, e.path)).map((e) => e.path);
  if (dirty.length > 0) {
    throw new GitGoodError(
      "DIRTY_WORKTREE",
      `${what} needs committed work, but these files have uncommitted changes: ${list(dirty)}; record them with 'gitgood memory commit' first — nothing was changed`,
      { files: dirty },
    );
  }
}

/**
 * Commits pending changes of the memory folder alone (trace lines appended since the last COMMIT,
 * hand edits), so that an operation that moves between states loses none of them. Returns the new
 * commit, or null when there was nothing to save.
 */
export async function saveMemory(ws: MemoryWorkspace, branch: string, why: string): Promise<string | null> {
  await ws.git.addForce([ws.memoryDir]);
  const pending = (await ws.git.status()).some((e) => inMemory(ws, e.path) && e.index !== " ");
  if (!pending) return null;
  return ws.git.commit(`memory(${branch}): save pending memory ${why}\n\nMemory-Branch: ${branch}\n`, [ws.memoryDir]);
}

export function list(files: readonly string[], max = 8): string {
  const shown = files.slice(0, max).join(", ");
  return files.length > max ? `${shown} and ${files.length - max} more` : shown;
}

/** First line of a text, shortened for a commit subject. */
export function subjectOf(text: string, max = 64): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
