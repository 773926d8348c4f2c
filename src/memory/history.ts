import { GitGoodError } from "../errors.js";
import { locked, refuseUnfinished, saveMemory } from "./guard.js";
import { memoryTrailers } from "./store.js";
import type { MemoryWorkspace } from "./memory-workspace.js";

async function commitOf(ws: MemoryWorkspace, id: string): Promise<string> {
  const oid = id.startsWith("-") ? null : await ws.git.resolve(`${id}^{commit}`);
  if (!oid) throw new GitGoodError("UNKNOWN_REVISION", `'${id}' is not a commit in ${ws.root}`, { id });
  return oid;
}

/** DIFF's arguments: two memory states (the second by default the work tree), and whether to show only a summary. */
export interface DiffInput {
  from: string;
  /** Second memory state; the work tree (with uncommitted memory) when absent. */
  to?: string;
  stat?: boolean;
}

/** Differences of the memory folder between two memory states (git commits). */
export async function diffMemory(ws: MemoryWorkspace, input: DiffInput): Promise<string> {
  ws.requireInitialized();
  const from = await commitOf(ws, input.from);
  const to = input.to !== undefined ? await commitOf(ws, input.to) : null;
  return ws.git.diff(from, to, ws.memoryDir, input.stat ?? false);
}

/** What RESTORE did: the branch, the state it went back to, its commit, and the commit that saved uncommitted memory. */
export interface RestoreResult {
  branch: string;
  from: string;
  commit: string;
  /** Commit that saved the memory changes not yet committed before restoring, if there were any. */
  saved: string | null;
}

/**
 * Puts the memory folder back as it was at memory state `id`, as a new commit on the current branch
 * (history is kept, so a restore can itself be undone). Memory changes not yet committed are saved
 * in a commit first; code, committed or not, is left alone.
 */
export async function restoreMemory(ws: MemoryWorkspace, id: string): Promise<RestoreResult> {
  return locked(ws, async () => {
    const branch = await ws.currentMemoryBranch();
    const from = await commitOf(ws, id);
    if ((await ws.git.readAt(from, ws.branchRel(branch, "commit.md"))) === null) {
      throw new GitGoodError(
        "NOT_A_MEMORY_STATE",
        `commit ${from.slice(0, 12)} holds no memory of branch '${branch}' (${ws.branchRel(branch, "commit.md")}); nothing was changed`,
        { id: from, branch },
      );
    }
    await refuseUnfinished(ws);
    const saved = await saveMemory(ws, branch, `before restoring ${from.slice(0, 12)}`);
    await ws.git.restoreDir(from, ws.memoryDir);
    const commit = await ws.git.commit(
      `memory(${branch}): restore memory as of ${from.slice(0, 12)}\n\n${memoryTrailers(branch, null, { "Memory-Restored-From": from })}\n`,
      [ws.memoryDir],
    );
    return { branch, from, commit, saved };
  });
}
