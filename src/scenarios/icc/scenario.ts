import { GitGoodError } from "../../errors.js";
import type { ChainSample } from "../../dataset/sample.js";
import { patchWithEntries, type PatchEntry } from "../../git/diff.js";
import type { Repo } from "../../git/repo.js";
import { checkOutOnly } from "../../git/sparse.js";
import { DEFAULT_HISTORY, treeStore } from "../../git/store.js";
import { treeOf } from "../../git/trees.js";
import { applyToIndex, checkoutBranchAndTree, commitStaged, readTreeIntoIndex, resetIndex, useIndexFile } from "../../git/worktree.js";
import { Sandbox } from "../../sandbox/sandbox.js";
import type { AnyScenarioDefinition, ScenarioSetupOptions } from "../definition.js";
import { ScenarioBase, gitWorkSandbox, inNewSandbox } from "../shared/base.js";
import { chainFinalState, loadChain, type Chain } from "../shared/chain.js";
import { privateText } from "../shared/files.js";
import type { HistoryFinalState } from "../shared/schemas.js";
import type { InitialContext } from "../types.js";
import { iccContext } from "./context.js";
import type { IccHost, Remaining } from "./types.js";
import { buildPatch, numberHunks, parseDiff, type FileDiff } from "./hunks.js";
import type { IccData, IccScope } from "./state.js";

export type { IccScope };

const ICC_BRANCH = "gitgood/icc";
/** The private file holding the index of the tip's tree for the sandbox's work tree, written by the set-up's checkout. */
const TIP_INDEX = "tip-index";


/**
 * Iterative committing: HEAD at the parent of the chain's oldest commit, the work tree holding the
 * chain's whole change. The work tree never changes; what is left to commit is always the diff from
 * HEAD to the tree of the chain's tip, so hunks are git's own and are renumbered after every commit.
 * The sandbox holds the base's history and that tree, but none of the chain's commits.
 */
export class IccScenario extends ScenarioBase<IccData> implements IccHost {
  declare readonly sample: ChainSample;


  static async setup(
    sample: ChainSample,
    source: Repo,
    opts: ScenarioSetupOptions & { scope?: IccScope },
    definition: AnyScenarioDefinition,
  ): Promise<IccScenario> {
    const chain = await loadChain(source, sample);
    const store = await treeStore(source, chain.base, await treeOf(source, chain.base), chain.tipTree, opts.history ?? DEFAULT_HISTORY);
    const where = gitWorkSandbox(sample.id, ICC_BRANCH, store, opts);
    return inNewSandbox(source, where, async (sandbox) => {
      // What is left to commit at the start (HEAD at the base): the chain's whole change, also what a tool-only work tree holds.
      const change = await patchWithEntries(sandbox.repo, chain.base, chain.tipTree);
      if (opts.workTree === "tools") checkOutOnly(sandbox.repo.gitDir, change.entries.map((e) => e.path));
      await checkoutBranchAndTree(sandbox.repo, ICC_BRANCH, chain.base, chain.tipTree, sandbox.privatePath(TIP_INDEX));
      const scenario = new IccScenario(definition, sandbox, sample, source.dir, { chain, scope: opts.scope ?? "file", done: false });
      scenario.left = Promise.resolve(scenario.remainingOf(change));
      scenario.data.done = (await scenario.remaining()).files.length === 0;
      return scenario;
    });
  }

  static restore(sandbox: Sandbox, sample: ChainSample, source: string, data: IccData, definition: AnyScenarioDefinition): IccScenario {
    return new IccScenario(definition, sandbox, sample, source, data);
  }

  get scope(): IccScope {
    return this.data.scope;
  }

  get chain(): Chain {
    return this.data.chain;
  }

  /**
   * What is left to commit: the diff from HEAD to the tree of the chain's tip. It depends on HEAD alone,
   * which only `commitIndex` moves (the repository is gitgood's own), so it is computed once per commit.
   */
  remaining(): Promise<Remaining> {
    this.left ??= this.computeRemaining();
    this.left.catch(() => (this.left = null));
    return this.left;
  }

  private left: Promise<Remaining> | null = null;

  private async computeRemaining(): Promise<Remaining> {
    return this.remainingOf(await patchWithEntries(this.sandbox.repo, "HEAD", this.data.chain.tipTree));
  }

  /** What is left to commit, from the diff of HEAD to the tip's tree. */
  private remainingOf({ entries, patch }: { entries: PatchEntry[]; patch: string }): Remaining {
    const files = parseDiff(patch, entries);
    const offered = (f: FileDiff): boolean => this.data.scope === "all" || f.path === this.sample.scenario.file;
    return { files, hunks: numberHunks(files, offered), others: files.filter((f) => !offered(f)) };
  }

  /** Commits exactly the chosen hunks (by current number); the rest stays in the work tree. */
  async commitHunks(selected: readonly number[], message: string): Promise<string> {
    const left = await this.remaining();
    const count = left.hunks.length;
    if (count === 0) {
      throw new GitGoodError("NO_HUNKS", "there are no hunks left to choose; use commit_remaining_changes for the rest");
    }
    const bad = selected.filter((n) => n >= count);
    if (bad.length > 0) {
      throw new GitGoodError(
        "INDEX_OUT_OF_RANGE",
        `no hunk ${bad.map((n) => `HUNK-${n}`).join(", ")}: the hunks now run from HUNK-0 to HUNK-${count - 1}`,
      );
    }
    const dupes = selected.filter((n, i) => selected.indexOf(n) !== i);
    if (dupes.length > 0) throw new GitGoodError("BAD_ARGUMENTS", `HUNK-${dupes[0]} is selected more than once`);
    const chosen = left.hunks.filter((h) => selected.includes(h.id));
    const patch = Buffer.from(buildPatch(left.files, chosen), "latin1");
    await applyToIndex(this.sandbox.repo, patch);
    return this.commitIndex(message);
  }

  /** Commits everything still uncommitted, in every file. */
  async commitRest(message: string): Promise<string> {
    if (this.data.done) throw new GitGoodError("NOTHING_TO_COMMIT", "everything is committed already");
    // The index of the tip's tree the set-up's checkout wrote, put in place; git reads the tree in only without it.
    if (!useIndexFile(this.sandbox.repo, this.sandbox.privatePath(TIP_INDEX))) await readTreeIntoIndex(this.sandbox.repo, this.data.chain.tipTree);
    return this.commitIndex(message, true);
  }

  /**
   * Commits the index with the chain's people and dates. `wholeTip`: the index holds the tip's tree, so
   * after the commit nothing is left to commit and no diff of HEAD to the tip is needed to say so.
   */
  private async commitIndex(message: string, wholeTip = false): Promise<string> {
    this.left = null;
    const file = privateText(this.sandbox, "commit-message.txt", message.endsWith("\n") ? message : `${message}\n`);
    const oid = await commitStaged(this.sandbox.repo, {
      messageFile: file,
      cleanup: "whitespace",
      author: this.data.chain.author,
      committer: this.data.chain.committer,
    }).catch(async (err: unknown) => {
      await resetIndex(this.sandbox.repo);
      throw err;
    });
    this.left = wholeTip ? Promise.resolve({ files: [], hunks: [], others: [] }) : null;
    this.data.done = (await this.remaining()).files.length === 0;
    return oid;
  }

  initialContext(): Promise<InitialContext> {
    return iccContext(this);
  }

  isDone(): boolean {
    return this.data.done;
  }

  async finalState(): Promise<HistoryFinalState> {
    const pending = this.data.done ? null : "some changes were never committed";
    return chainFinalState(this.sandbox, this.data.chain.base, this.data.done, pending);
  }
}
