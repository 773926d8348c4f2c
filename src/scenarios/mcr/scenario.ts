import { GitGoodError } from "../../errors.js";
import type { MergeSample } from "../../dataset/sample.js";
import { readCommit, requireCommits } from "../../git/commits.js";
import { Repo } from "../../git/repo.js";
import { DEFAULT_HISTORY, mergeStore } from "../../git/store.js";
import { treeOf } from "../../git/trees.js";
import { addPaths, checkoutBranch, commitStaged, mergeNoCommit, unmergedPaths } from "../../git/worktree.js";
import { Sandbox } from "../../sandbox/sandbox.js";
import type { AnyScenarioDefinition, ScenarioSetupOptions } from "../definition.js";
import { ScenarioBase, inNewSandbox } from "../shared/base.js";
import { nextConflictLine, type ConflictHost } from "../shared/conflict-tools.js";
import {
  conflictOrder,
  conflictPaths,
  readConflictIndex,
  scanConflicts,
  unresolvedCount,
  type ConflictState,
} from "../shared/conflicts.js";
import { fileContent, privateText } from "../shared/files.js";
import type { InitialContext } from "../types.js";
import { mcrContext } from "./context.js";
import { MCR } from "./index.js";
import type { McrData, McrFinalState } from "./state.js";

export const MCR_BRANCH = "gitgood/mcr";

/**
 * Merge conflict resolution: parent 1 checked out on a scenario branch, parent 2 merged into it with
 * the conflicts left in the work tree. The agent resolves them in order; after the last one the merge
 * is committed with the original merge commit's message, author and committer (read from the source:
 * the sandbox holds the parents' history, never the merge commit).
 */
export class McrScenario extends ScenarioBase<McrData> implements ConflictHost {
  declare readonly sample: MergeSample;

  get definition(): AnyScenarioDefinition {
    return MCR;
  }

  static async setup(sample: MergeSample, source: Repo, opts: ScenarioSetupOptions = {}): Promise<McrScenario> {
    const { merge_commit_hash: merge, parents } = sample.scenario;
    await requireCommits(source, [parents[0], parents[1], merge]);
    const store = await mergeStore(source, parents[0], parents[1], opts.history ?? DEFAULT_HISTORY);
    const where = { label: sample.id, branch: MCR_BRANCH, keep: opts.keep, root: opts.root, store, packs: opts.packs, workTree: opts.workTree };
    return inNewSandbox(source, where, async (sandbox) => {
      await checkoutBranch(sandbox.repo, MCR_BRANCH, parents[0]);
      const clean = await mergeNoCommit(sandbox.repo, parents[1]);
      const unmerged = await unmergedPaths(sandbox.repo);
      if (clean || unmerged.length === 0) {
        throw new GitGoodError("SAMPLE_MISMATCH", `merging the parents of ${merge} gives no conflict`, { sample: sample.id });
      }
      const { order, notConflicted } = conflictOrder(sample.scenario.files_in_merge_conflict, unmerged);
      const data: McrData = {
        conflicts: scanConflicts(sandbox.workDir, order, await readConflictIndex(sandbox.repo)),
        notConflicted,
        committed: null,
      };
      const scenario = new McrScenario(sandbox, sample, source.dir, data);
      return scenario;
    });
  }

  static restore(sandbox: Sandbox, sample: MergeSample, source: string, data: McrData): McrScenario {
    return new McrScenario(sandbox, sample, source, data);
  }

  get conflicts(): ConflictState {
    return this.data.conflicts;
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

  private async commitMerge(): Promise<string> {
    const original = await readCommit(await Repo.open(this.source), this.sample.scenario.merge_commit_hash);
    await addPaths(this.sandbox.repo, conflictPaths(this.data.conflicts));
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
    return {
      done: committed !== null,
      conflicts_left: unresolvedCount(this.data.conflicts),
      head: committed,
      tree,
      files: this.data.conflicts.files.map((f) => fileContent(this.sandbox.workDir, f.path)),
    };
  }
}
