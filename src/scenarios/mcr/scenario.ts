import { GitGoodError } from "../../errors.js";
import type { MergeSample } from "../../dataset/sample.js";
import { readCommit, requireCommits } from "../../git/commits.js";
import { Repo } from "../../git/repo.js";
import { DEFAULT_HISTORY, mergeStore } from "../../git/store.js";
import { treeOf } from "../../git/trees.js";
import { unwrittenEntry } from "../../git/sparse.js";
import { stagedEntries } from "../../git/trees.js";
import { addPaths, autoMergeTree, checkoutBranch, commitStaged, mergeNoCommit } from "../../git/worktree.js";
import { parsePath } from "../../git/paths.js";
import { checkRelativePath, entryKind, makeProjectParents, writeProjectFile } from "../../sandbox/paths.js";
import { Sandbox } from "../../sandbox/sandbox.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { AnyScenarioDefinition, ScenarioSetupOptions } from "../definition.js";
import { ScenarioBase, gitWorkSandbox, inNewSandbox } from "../shared/base.js";
import { nextConflictLine } from "../shared/conflict-tools.js";
import {
  LINK_MODE,
  conflictOrder,
  conflictPaths,
  currentIndex,
  readConflictIndex,
  resolveWholeFile,
  scanConflicts,
  unresolvedCount,
  type ConflictState,
} from "../shared/conflicts.js";
import { bytesContent, fileContent, privateText } from "../shared/files.js";
import type { FileContent } from "../shared/schemas.js";
import type { InitialContext } from "../types.js";
import { mcrContext } from "./context.js";
import type { McrHost } from "./types.js";
import { resolvabilityOf } from "./resolvable.js";
import type { McrData, McrFinalState, McrToolSet } from "./state.js";
import { MCR_EXTENDED_TOOLS, MCR_TOOLS, WRITE_FILE } from "./tools.js";

const MCR_BRANCH = "gitgood/mcr";

/**
 * Merge conflict resolution: parent 1 checked out on a scenario branch, parent 2 merged into it with
 * the conflicts left in the work tree. The agent resolves them in order; after the last one the merge
 * is committed with the original merge commit's message, author and committer (read from the source:
 * the sandbox holds the parents' history, never the merge commit).
 */
export class McrScenario extends ScenarioBase<McrData> implements McrHost {
  declare readonly sample: MergeSample;


  static async setup(
    sample: MergeSample,
    source: Repo,
    opts: ScenarioSetupOptions & { tools?: McrToolSet },
    definition: AnyScenarioDefinition,
  ): Promise<McrScenario> {
    const { merge_commit_hash: merge, parents } = sample.scenario;
    await requireCommits(source, [parents[0], parents[1], merge]);
    // Re-merging in the source (when the sample does not say it is resolvable) needs nothing of the
    // sandbox: it runs beside the store's planning, packing and the sandbox's merge, and is awaited last.
    const resolving = resolvabilityOf(source, sample);
    resolving.catch(() => undefined);
    const store = await mergeStore(source, parents[0], parents[1], opts.history ?? DEFAULT_HISTORY);
    const where = gitWorkSandbox(sample.id, MCR_BRANCH, store, opts);
    return inNewSandbox(source, where, async (sandbox) => {
      await checkoutBranch(sandbox.repo, MCR_BRANCH, parents[0]);
      const clean = await mergeNoCommit(sandbox.repo, parents[1]);
      const index = await readConflictIndex(sandbox.repo);
      const unmerged = [...index.keys()];
      if (clean || unmerged.length === 0) {
        throw new GitGoodError("SAMPLE_MISMATCH", `merging the parents of ${merge} gives no conflict`, { sample: sample.id });
      }
      const conflictedTree = autoMergeTree(sandbox.repo.gitDir);
      const { order, notConflicted } = conflictOrder(sample.scenario.files_in_merge_conflict, unmerged);
      const resolvable = await resolving;
      const data: McrData = {
        conflicts: scanConflicts(sandbox.workDir, order, index),
        notConflicted,
        committed: null,
        resolvable: resolvable.resolvable,
        unresolvableReason: resolvable.reason,
        tools: opts.tools ?? "paper",
        edited: [],
        conflictedTree,
      };
      const scenario = new McrScenario(definition, sandbox, sample, source.dir, data);
      return scenario;
    });
  }

  static restore(sandbox: Sandbox, sample: MergeSample, source: string, data: McrData, definition: AnyScenarioDefinition): McrScenario {
    return new McrScenario(definition, sandbox, sample, source, data);
  }

  get conflicts(): ConflictState {
    return this.data.conflicts;
  }

  override get tools(): ToolRegistry<unknown> {
    return (this.data.tools === "extended" ? MCR_EXTENDED_TOOLS : MCR_TOOLS);
  }

  /** The tool set the agent works with (`--mcr-tools`). */
  get toolSet(): McrToolSet {
    return this.data.tools;
  }

  /** Replacing only the conflict regions can reproduce the recorded merge's tree. */
  get resolvable(): boolean {
    return this.data.resolvable;
  }

  get unresolvableReason(): string | null {
    return this.data.unresolvableReason;
  }

  get notConflicted(): readonly string[] {
    return this.data.notConflicted;
  }

  activeConflicts(): ConflictState {
    if (this.data.committed) {
      throw new GitGoodError("NO_CONFLICT", `all conflicts are resolved and the merge is committed (${this.data.committed})`);
    }
    return this.data.conflicts;
  }

  async afterResolution(): Promise<string> {
    if (unresolvedCount(this.data.conflicts) > 0) return nextConflictLine(this.sandbox.workDir, this.data.conflicts);
    const oid = await this.commitMerge();
    return `All conflicts are resolved; the merge is committed as ${oid}. The task is finished.`;
  }

  /**
   * The extended tool: writes `content` as the whole file `given`, creating it (and its directories)
   * when it is missing. A file without conflicts is staged with the merge; a conflicted file may be
   * written once the conflicts before its own are resolved, and its open conflicts then count as
   * resolved (after the last one the merge is committed). Links are never written or gone through.
   */
  async writeFile(given: string, content: string): Promise<string> {
    const state = this.activeConflicts();
    const root = this.sandbox.workDir;
    const p = checkRelativePath(root, given);
    const rel = p.shown;
    const kind = entryKind(root, p);
    if (kind === "link") {
      throw new GitGoodError("SYMLINK_REFUSED", `${rel} is a symbolic link; ${WRITE_FILE} writes regular files only`, { path: rel });
    }
    if (kind === "directory" || kind === "other") throw new GitGoodError("NOT_A_FILE", `${rel} is not a regular file`, { path: rel });
    const unwritten = kind === "missing" ? await unwrittenEntry(this.sandbox.repo, rel) : null;
    if (unwritten?.kind === "link") {
      throw new GitGoodError("SYMLINK_REFUSED", `path '${rel}' is not allowed: '${unwritten.path}' is a symbolic link, and the tools never go through links`, { path: rel });
    }
    if (unwritten?.kind === "directory") throw new GitGoodError("NOT_A_FILE", `${rel} is a directory, not a file`, { path: rel });
    const bytes = Buffer.from(content, "utf8");
    const fileIndex = state.files.findIndex((f) => f.path === rel);
    const conflicted = state.files[fileIndex];
    if (conflicted) {
      if (conflicted.mode === LINK_MODE) {
        throw new GitGoodError("SYMLINK_REFUSED", `${rel} is a conflicted symbolic link; resolve it with resolve_current_merge_conflict_with`, { path: rel });
      }
      const current = currentIndex(state);
      const open = state.conflicts.some((c) => c.file === fileIndex && c.resolved === null);
      const at = current === null ? undefined : state.conflicts[current];
      if (open && at && at.file !== fileIndex) {
        const where = state.files[at.file]?.path ?? "";
        throw new GitGoodError(
          "NOT_CURRENT",
          `conflicts are resolved in order: conflict ${current} in ${where} comes first; write ${rel} when its own conflicts are current`,
          { path: rel, current },
        );
      }
    }
    const staged = kind === "missing" ? (await stagedEntries(this.sandbox.repo)).get(rel) : undefined;
    const executable = conflicted ? conflicted.mode === "100755" : staged?.mode === "100755";
    makeProjectParents(root, p);
    writeProjectFile(root, p, bytes, executable ? 0o755 : 0o644);
    const wrote = `Wrote ${rel} (${bytes.length} bytes)`;
    if (!conflicted) {
      if (!this.data.edited.includes(rel)) this.data.edited.push(rel);
      return `${wrote}; it is committed with the merge once the last conflict is resolved.`;
    }
    const done = resolveWholeFile(state, fileIndex, bytes.length);
    if (done.length === 0) return `${wrote}.`;
    const head = `${wrote}; this resolves conflict(s) ${done.join(", ")}; ${unresolvedCount(state)} conflict(s) left.`;
    return `${head}\n${await this.afterResolution()}`.trimEnd();
  }

  private async commitMerge(): Promise<string> {
    const original = await readCommit(await this.openSource(), this.sample.scenario.merge_commit_hash);
    const edited = this.data.edited.map((e) => parsePath(e));
    await addPaths(this.sandbox.repo, [...conflictPaths(this.data.conflicts), ...edited]);
    const messageFile = privateText(this.sandbox, "merge-message.txt", `${original.message}\n`);
    const oid = await commitStaged(this.sandbox.repo, {
      messageFile,
      cleanup: "verbatim",
      author: original.author,
      committer: original.committer,
    });
    this.data.committed = oid;
    return oid;
  }

  initialContext(): Promise<InitialContext> {
    return mcrContext(this);
  }

  isDone(): boolean {
    return this.data.committed !== null;
  }

  async finalState(): Promise<McrFinalState> {
    const committed = this.data.committed;
    const tree = committed ? await treeOf(this.sandbox.repo, committed) : null;
    const conflictsLeft = unresolvedCount(this.data.conflicts);
    return {
      done: committed !== null,
      conflicts_left: conflictsLeft,
      head: committed,
      tree,
      files: [...this.data.conflicts.files.map((f) => f.path), ...this.data.edited].map((f) => fileContent(this.sandbox.workDir, f)),
      resolvable: this.data.resolvable,
      unresolvable_reason: this.data.unresolvableReason,
      tools: this.data.tools,
      ...(conflictsLeft === 0 && this.data.conflictedTree ? { conflicted: await this.conflictedFiles(this.data.conflictedTree) } : {}),
    };
  }

  /** The conflicted files with markers as the set-up's merge left them, read from its tree (the sandbox's reader: no process). */
  private async conflictedFiles(tree: string): Promise<FileContent[]> {
    const reader = this.sandbox.repo.reader;
    if (!reader) return [];
    const out: FileContent[] = [];
    for (const f of this.data.conflicts.files) {
      if (f.wholeFile) continue;
      const blob = await reader.read(Buffer.concat([Buffer.from(`${tree}:`), parsePath(f.path)]));
      if (blob?.type === "blob") out.push(bytesContent(f.path, blob.content));
    }
    return out;
  }
}
