import { GitGoodError } from "../errors.js";
import { renderHeader } from "./entries.js";
import { folderHasEntries, writeText } from "./files.js";
import { locked, refuseUnfinished } from "./guard.js";
import { renderRoadmap } from "./roadmap.js";
import { refreshBranchMetadata, memoryTrailers } from "./store.js";
import { renderTraceHeader } from "./trace.js";
import { MAIN_FILE, type MemoryWorkspace } from "./memory-workspace.js";

/** INIT's arguments: the goal of the work and the purpose of the first memory branch. */
export interface InitInput {
  goal: string;
  /** Purpose of the first memory branch (the checked-out git branch). */
  purpose?: string;
}

/** What INIT made: the first memory branch, its commit, and the memory folder. */
export interface InitResult {
  branch: string;
  commit: string;
  memoryDir: string;
}

const DEFAULT_MAIN_PURPOSE = "Main line of work toward the goal.";

/** Creates the memory folder for the checked-out branch and commits it (and nothing else). */
export async function initMemory(ws: MemoryWorkspace, input: InitInput): Promise<InitResult> {
  const dir = ws.abs();
  if (folderHasEntries(ws.root, dir)) {
    throw new GitGoodError(
      "ALREADY_INITIALIZED",
      `${ws.rel()} already exists in ${ws.root}; memory is set up there already (or pick another folder name)`,
      { dir },
    );
  }
  const branch = await ws.currentBranch();
  return locked(ws, async () => {
    await refuseUnfinished(ws);
    writeText(ws.root, ws.abs(MAIN_FILE), renderRoadmap(input.goal));
    writeText(ws.root, ws.branchAbs(branch, "commit.md"), renderHeader(branch, input.purpose ?? DEFAULT_MAIN_PURPOSE));
    writeText(ws.root, ws.branchAbs(branch, "log.md"), renderTraceHeader(branch));
    await refreshBranchMetadata(ws, branch);
    await ws.git.addForce([ws.memoryDir]);
    const commit = await ws.git.commit(
      `memory(${branch}): start memory\n\n${input.goal.trim()}\n\n${memoryTrailers(branch, 0)}\n`,
      [ws.memoryDir],
    );
    return { branch, commit, memoryDir: ws.memoryDir };
  });
}
