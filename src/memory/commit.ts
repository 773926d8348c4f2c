import { GitGoodError } from "../errors.js";
import { lastEntry, nextEntryNumber, nextSummary } from "./entries.js";
import { readText, restoreText } from "./files.js";
import { locked, refuseStaged, refuseUnfinished, subjectOf } from "./guard.js";
import { appendEntry, memoryTrailers, readCommitLog, refreshBranchMetadata, updateRoadmap, worktreeSource } from "./store.js";
import { MAIN_FILE, type MemoryWorkspace } from "./memory-workspace.js";

/** COMMIT's arguments: what the step contributed, the new running summary, and milestones. */
export interface CommitInput {
  /** What this commit contributed. */
  contribution: string;
  /** New running summary; by default the previous one followed by the contribution. */
  summary?: string;
  /** Milestones to add to main.md. */
  milestones?: string[];
  /** To-do items to add to main.md. */
  todos?: string[];
}

/** What COMMIT made: the branch, the entry's number on it, the commit, and the running summary now. */
export interface CommitResult {
  branch: string;
  entry: number;
  commit: string;
  summary: string;
}

/**
 * COMMIT: appends an entry to the branch's commit.md, updates main.md when asked, refreshes
 * metadata.yaml, and records the whole work tree (code and memory) in one git commit. Staged work is
 * refused. When the commit fails, the memory files and the index are put back as they were, so no
 * entry is left behind for a commit that does not exist.
 */
export async function commitMemory(ws: MemoryWorkspace, input: CommitInput): Promise<CommitResult> {
  if (input.contribution.trim() === "") {
    throw new GitGoodError("BAD_INPUT", "a commit needs a contribution: say what this step achieved");
  }
  return locked(ws, async () => {
    const branch = await ws.currentMemoryBranch();
    await refuseUnfinished(ws);
    await refuseStaged(ws);
    const log = await readCommitLog(ws, worktreeSource(ws), branch);
    const n = nextEntryNumber(log);
    const summary = nextSummary(log, input.contribution, input.summary);
    const touched = [ws.branchAbs(branch, "commit.md"), ws.abs(MAIN_FILE), ws.branchAbs(branch, "metadata.yaml")];
    const before = touched.map((file) => ({ file, text: readText(ws.root, file) }));
    const index = await ws.git.saveIndex();
    try {
      appendEntry(ws, branch, {
        n,
        date: ws.timestamp(),
        note: null,
        purpose: lastEntry(log)?.purpose || log.purpose,
        summary,
        contribution: input.contribution,
      });
      updateRoadmap(ws, input.milestones ?? [], input.todos ?? []);
      await ws.git.addAll();
      await refreshBranchMetadata(ws, branch);
      await ws.git.addForce([ws.memoryDir]);
      const message = `memory(${branch}): ${subjectOf(input.contribution)}\n\n${input.contribution.trim()}\n\n${memoryTrailers(branch, n)}\n`;
      const commit = await ws.git.commit(message);
      return { branch, entry: n, commit, summary };
    } catch (err) {
      for (const { file, text } of before) restoreText(ws.root, file, text);
      index.restore();
      throw err;
    }
  });
}
