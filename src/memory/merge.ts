import path from "node:path";
import { GitGoodError } from "../errors.js";
import { lastEntry, nextEntryNumber } from "./entries.js";
import { appendText, readText, writeText } from "./files.js";
import { list, locked, refuseDirtyCode, refuseUnfinished, saveMemory, subjectOf } from "./guard.js";
import { memoryContext } from "./context.js";
import { resolveMemoryConflict } from "./resolve.js";
import { appendEntry, memoryTrailers, readCommitLog, refreshBranchMetadata, revisionSource, updateRoadmap, worktreeSource } from "./store.js";
import { newTrace, renderMergedTrace } from "./trace.js";
import type { MemoryWorkspace } from "./memory-workspace.js";

/** MERGE's arguments: the memory branch to merge into the current one, what it achieved, and the new running summary. */
export interface MergeInput {
  branch: string;
  /** What the merged branch achieved, for main.md and the merge entry. */
  outcome: string;
  /** New running summary of the current branch; by default the previous one plus the outcome. */
  summary?: string;
}

/** What MERGE did: the merged branch's CONTEXT, the branches, the merge entry's number and its commit. */
export interface MergeResult {
  /** CONTEXT of the merged branch, read before merging. */
  context: string;
  branch: string;
  into: string;
  entry: number;
  commit: string;
  /** Memory files whose conflicts were resolved by keeping both sides. */
  memoryConflicts: string[];
}

/**
 * MERGE: reads the other branch's CONTEXT, then merges it with a real merge commit that records code
 * and memory. Memory conflicts are resolved (both sides kept, tagged). A code conflict aborts the
 * merge — the work tree and index are as before — and is reported with the files concerned.
 */
export async function mergeMemory(ws: MemoryWorkspace, input: MergeInput): Promise<MergeResult> {
  const branch = input.branch.trim();
  if (input.outcome.trim() === "") throw new GitGoodError("BAD_INPUT", "a merge needs an outcome: say what the branch achieved");
  return locked(ws, async () => {
    const into = await ws.currentMemoryBranch();
    if (branch === into) throw new GitGoodError("SELF_MERGE", `cannot merge branch '${branch}' into itself`, { branch });
    if (!(await ws.git.branchExists(branch))) throw new GitGoodError("UNKNOWN_BRANCH", `there is no branch '${branch}'`, { branch });
    const theirRef = `refs/heads/${branch}`;
    const context = await memoryContext(ws, { branch });
    const tip = await ws.git.resolve(`${theirRef}^{commit}`);
    const base = tip ? await ws.git.mergeBase("HEAD", tip) : null;
    if (tip && base === tip) {
      throw new GitGoodError("ALREADY_MERGED", `branch '${branch}' is already merged into '${into}'; nothing to do`, { branch });
    }
    await refuseUnfinished(ws);
    await refuseDirtyCode(ws, "merge");
    await saveMemory(ws, into, `before merging ${branch}`);

    const attempt = await ws.git.startMerge(branch);
    const codeConflicts = attempt.unmerged.filter((f) => !f.startsWith(`${ws.memoryDir}/`));
    if (codeConflicts.length > 0) {
      await ws.git.abortMerge();
      throw new GitGoodError(
        "MERGE_CONFLICT",
        `merging '${branch}' into '${into}' conflicts in code (${list(codeConflicts)}); the merge was aborted and the work tree is as it was — resolve it with git, then record the result with 'gitgood memory commit'`,
        { branch, into, files: codeConflicts, context },
      );
    }
    try {
      const memoryConflicts = attempt.unmerged;
      for (const file of memoryConflicts) {
        const text = await resolveMemoryConflict(ws.git, file, { ours: into, theirs: branch });
        writeText(ws.root, path.join(ws.root, ...file.split("/")), text);
      }

      const ours = await readCommitLog(ws, worktreeSource(ws), into);
      const theirs = await readCommitLog(ws, revisionSource(ws, theirRef), branch);
      const outcome = input.outcome.trim();
      const prev = lastEntry(ours)?.summary ?? "";
      const summary = input.summary?.trim() || (prev ? `${prev}\nMerged \`${branch}\`: ${outcome}` : `Merged \`${branch}\`: ${outcome}`);
      const n = nextEntryNumber(ours);
      const theirLast = lastEntry(theirs);
      const timestamp = ws.timestamp();
      appendEntry(ws, into, {
        n,
        date: timestamp,
        note: `merge of ${branch}`,
        purpose: lastEntry(ours)?.purpose || ours.purpose,
        summary,
        contribution: [
          outcome,
          "",
          `Merged branch \`${branch}\`, whose purpose was: ${theirs.purpose || "(not stated)"}`,
          theirLast ? `Its progress at the merge: ${theirLast.summary}` : "It had no commits of its own.",
        ].join("\n"),
      });
      updateRoadmap(ws, [`Merged \`${branch}\` into \`${into}\`: ${outcome}`], []);

      const theirTrace = (await ws.git.readAt(theirRef, ws.branchRel(branch, "log.md"))) ?? "";
      const baseTrace = base ? await ws.git.readAt(base, ws.branchRel(branch, "log.md")) : null;
      const ourTrace = ws.branchAbs(into, "log.md");
      const separator = (readText(ws.root, ourTrace) ?? "").endsWith("\n") ? "" : "\n";
      appendText(ws.root, ourTrace, separator + renderMergedTrace(branch, timestamp, newTrace(theirTrace, baseTrace)));

      await refreshBranchMetadata(ws, into);
      await ws.git.addForce([ws.memoryDir]);
      const message = `memory(${into}): merge ${branch} — ${subjectOf(outcome, 48)}\n\n${outcome}\n\n${memoryTrailers(into, n, { "Memory-Merged": branch })}\n`;
      const commit = await ws.git.commit(message);
      return { context, branch, into, entry: n, commit, memoryConflicts };
    } catch (err) {
      // Leave no half-made merge behind: git puts the work tree and index back as they were.
      if ((await ws.git.operationInProgress()) === "merge") await ws.git.abortMerge();
      throw err;
    }
  });
}
