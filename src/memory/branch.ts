import { GitGoodError } from "../errors.js";
import { renderHeader } from "./entries.js";
import { exists, readText, writeText } from "./files.js";
import { locked, refuseUnfinished, saveMemory } from "./guard.js";
import { memoryTrailers, refreshBranchMetadata } from "./store.js";
import { renderTraceHeader } from "./trace.js";
import type { MemoryWorkspace } from "./memory-workspace.js";

/** BRANCH's arguments: the new memory branch's name and what it is for. */
export interface BranchInput {
  name: string;
  purpose: string;
}

/** What BRANCH did: the new branch, the branch it left, its first commit, and the commit that saved pending memory. */
export interface BranchResult {
  branch: string;
  from: string;
  commit: string;
  /** Commit that saved pending memory of the branch left behind, if there was any. */
  saved: string | null;
}

/**
 * BRANCH: saves pending memory of the current branch, creates a git branch at HEAD and checks it out
 * (uncommitted code comes along), then opens the memory branch (purpose, fresh trace, metadata copied
 * from the parent) in a commit of its own files only.
 */
export async function branchMemory(ws: MemoryWorkspace, input: BranchInput): Promise<BranchResult> {
  const name = input.name.trim();
  if (input.purpose.trim() === "") {
    throw new GitGoodError("BAD_INPUT", "a branch needs a purpose: say what it is for");
  }
  if (!(await ws.git.validBranchName(name))) {
    throw new GitGoodError("BAD_BRANCH_NAME", `'${input.name}' is not a valid git branch name`, { branch: input.name });
  }
  return locked(ws, async () => {
    const from = await ws.currentMemoryBranch();
    await refuseUnfinished(ws);
    if (await ws.git.branchExists(name)) {
      throw new GitGoodError("BRANCH_EXISTS", `branch '${name}' exists already`, { branch: name });
    }
    if (exists(ws.root, ws.branchAbs(name, "commit.md"))) {
      throw new GitGoodError("BRANCH_EXISTS", `memory branch '${name}' exists already (${ws.branchRel(name, "commit.md")})`, {
        branch: name,
      });
    }
    const parentMeta = readText(ws.root, ws.branchAbs(from, "metadata.yaml"));
    const saved = await saveMemory(ws, from, `before opening branch ${name}`);
    await ws.git.switchCreate(name);
    writeText(ws.root, ws.branchAbs(name, "commit.md"), renderHeader(name, input.purpose));
    writeText(ws.root, ws.branchAbs(name, "log.md"), renderTraceHeader(name));
    await refreshBranchMetadata(ws, name, parentMeta);
    const dir = ws.rel("branches", ...name.split("/"));
    await ws.git.addForce([dir]);
    const commit = await ws.git.commit(
      `memory(${name}): open branch from ${from}\n\n${input.purpose.trim()}\n\n${memoryTrailers(name, 0)}\n`,
      [dir],
    );
    return { branch: name, from, commit, saved };
  });
}
