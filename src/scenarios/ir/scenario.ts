import { GitGoodError } from "../../errors.js";
import type { ChainSample } from "../../dataset/sample.js";
import { abortRebase, continueRebase, firstLine, rebaseInProgress, runTodo, startPausedRebase, stoppedCommit } from "../../git/rebase.js";
import { headCommit } from "../../git/refs.js";
import type { Repo } from "../../git/repo.js";
import { checkOutAlso } from "../../git/sparse.js";
import { DEFAULT_HISTORY, chainStore } from "../../git/store.js";
import { addPaths, checkoutBranch } from "../../git/worktree.js";
import { Sandbox } from "../../sandbox/sandbox.js";
import type { AnyScenarioDefinition, ScenarioSetupOptions } from "../definition.js";
import { ScenarioBase, gitWorkSandbox, inNewSandbox } from "../shared/base.js";
import { chainFinalState, loadChain, type Chain } from "../shared/chain.js";
import { VIEW_CURRENT, nextConflictLine } from "../shared/conflict-tools.js";
import { conflictPaths, readConflictIndex, scanConflicts, unresolvedCount, type ConflictState } from "../shared/conflicts.js";
import { privateText } from "../shared/files.js";
import type { HistoryFinalState } from "../shared/schemas.js";
import type { InitialContext } from "../types.js";
import { irContext } from "./context.js";
import { rebaseLeftInProgress } from "./rebase-state.js";
import type { IrHost } from "./types.js";
import { gitTodo, type TodoItem } from "./todo.js";
import type { IrData, IrPhase } from "./state.js";

export type { IrPhase };

const IR_BRANCH = "gitgood/ir";

/**
 * Interactive rebase: the chain's tip is checked out and `git rebase -i` over the chain's commits is
 * started and paused before any step. The sandbox holds the chain and its past, nothing after the tip. The agent plans a todo list, executes it, and resolves any
 * conflicts a reordering causes (or aborts back to the paused start).
 */
export class IrScenario extends ScenarioBase<IrData> implements IrHost {
  declare readonly sample: ChainSample;


  static async setup(sample: ChainSample, source: Repo, opts: ScenarioSetupOptions, definition: AnyScenarioDefinition): Promise<IrScenario> {
    const chain = await loadChain(source, sample);
    const store = await chainStore(source, chain.base, chain.tip.oid, opts.history ?? DEFAULT_HISTORY);
    const where = gitWorkSandbox(sample.id, IR_BRANCH, store, opts);
    return inNewSandbox(source, where, async (sandbox) => {
      await checkoutBranch(sandbox.repo, IR_BRANCH, chain.tip.oid);
      const listed = await startPausedRebase(sandbox.repo, chain.base, chain.committerEnv);
      const matches =
        listed.length === chain.commits.length && listed.every((short, i) => chain.commits[i]?.oid.startsWith(short));
      if (!matches) {
        throw new GitGoodError("SAMPLE_MISMATCH", `git's rebase todo does not list the chain's commits`, { listed });
      }
      const data: IrData = {
        chain,
        todo: chain.commits.map((_, i) => ({ commit_index: i, command: "pick" })),
        phase: "planning",
        conflicts: null,
        stoppedAt: null,
      };
      const scenario = new IrScenario(definition, sandbox, sample, source.dir, data);
      return scenario;
    });
  }

  static restore(sandbox: Sandbox, sample: ChainSample, source: string, data: IrData, definition: AnyScenarioDefinition): IrScenario {
    return new IrScenario(definition, sandbox, sample, source, data);
  }

  get chain(): Chain {
    return this.data.chain;
  }

  get todo(): readonly TodoItem[] {
    return this.data.todo;
  }

  get phase(): IrPhase {
    return this.data.phase;
  }

  get stoppedAt(): number | null {
    return this.data.stoppedAt;
  }

  /** Fails unless the rebase is paused before its first step (the only time the plan may change). */
  requirePlanning(action: string): void {
    if (this.data.phase === "done") {
      throw new GitGoodError("REBASE_DONE", `cannot ${action}: the rebase has already been executed`);
    }
    if (this.data.phase === "conflict") {
      throw new GitGoodError(
        "REBASE_STOPPED",
        `cannot ${action}: the rebase is stopped on a conflict in commit ${this.data.stoppedAt}; resolve it with ${VIEW_CURRENT} and resolve_current_merge_conflict_with, or call abort_rebase`,
      );
    }
  }

  setTodo(items: TodoItem[]): void {
    this.requirePlanning("change the todo list");
    this.data.todo = items;
  }

  /** Runs the planned todo. Returns a description of how it went (finished, or stopped on a conflict). */
  async execute(): Promise<string> {
    this.requirePlanning("execute the rebase");
    const { text, messages } = gitTodo(this.data.todo, this.data.chain.commits.map((c) => c.oid));
    for (const [name, message] of messages) privateText(this.sandbox, name, message);
    const r = await runTodo(this.sandbox.repo, {
      env: this.data.chain.committerEnv,
      messagesDir: this.sandbox.privatePath("."),
      todo: text,
    });
    return this.afterGit(r);
  }

  /** Abandons the running rebase and starts it again, paused, with the same plan. */
  async abort(): Promise<string> {
    if (this.data.phase !== "conflict") {
      throw new GitGoodError("NO_REBASE_STOP", "abort_rebase only applies while a rebase step is stopped on a conflict");
    }
    await this.restart();
    return "The rebase was aborted; the branch is back at the chain's tip and a new rebase is paused before its first step. The todo list is kept: change it with update_rebase_todo_list and call execute_rebase again.";
  }

  private async restart(): Promise<void> {
    if (rebaseInProgress(this.sandbox.repo)) await abortRebase(this.sandbox.repo);
    await startPausedRebase(this.sandbox.repo, this.data.chain.base, this.data.chain.committerEnv);
    this.data.phase = "planning";
    this.data.conflicts = null;
    this.data.stoppedAt = null;
  }

  private async afterGit(r: { code: number; stderr: string }): Promise<string> {
    if (!rebaseInProgress(this.sandbox.repo)) {
      this.data.phase = "done";
      this.data.conflicts = null;
      this.data.stoppedAt = null;
      const head = await headCommit(this.sandbox.repo);
      return `The rebase finished; the branch now ends at ${head}. The task is finished.`;
    }
    const conflictIndex = await readConflictIndex(this.sandbox.repo);
    const unmerged = [...conflictIndex.keys()];
    if (unmerged.length === 0) {
      // Stopped for another reason (a message could not be applied, say): go back to the paused start.
      const why = firstLine(r.stderr);
      await this.restart();
      throw new GitGoodError("REBASE_FAILED", `the rebase stopped without a conflict (${why}); it was aborted and paused again`, {
        stderr: r.stderr,
      });
    }
    // A tool-only work tree keeps the conflicted files from now on: a later step that conflicts in them again finds them.
    checkOutAlso(this.sandbox.repo.gitDir, unmerged);
    const stopped = stoppedCommit(this.sandbox.repo);
    const index = this.data.chain.commits.findIndex((c) => stopped !== null && c.oid.startsWith(stopped));
    this.data.phase = "conflict";
    this.data.stoppedAt = index === -1 ? null : index;
    this.data.conflicts = scanConflicts(this.sandbox.workDir, [...unmerged].sort(), conflictIndex);
    const subject = index === -1 ? "" : ` (${JSON.stringify(this.data.chain.commits[index]?.subject ?? "")})`;
    return [
      `The rebase stopped: applying commit ${index}${subject} conflicts in ${unmerged.join(", ")} (${this.data.conflicts.conflicts.length} conflict(s)).`,
      `Resolve them in order with ${VIEW_CURRENT} and resolve_current_merge_conflict_with; the rebase continues by itself after the last one. Or call abort_rebase to go back to the paused start.`,
    ].join("\n");
  }

  activeConflicts(): ConflictState {
    if (this.data.phase !== "conflict" || !this.data.conflicts) {
      throw new GitGoodError("NO_CONFLICT", "no rebase step is stopped on a conflict");
    }
    return this.data.conflicts;
  }

  async afterResolution(): Promise<string> {
    const state = this.activeConflicts();
    if (unresolvedCount(state) > 0) return nextConflictLine(this.sandbox.workDir, state);
    await addPaths(this.sandbox.repo, conflictPaths(state));
    return this.afterGit(
      await continueRebase(this.sandbox.repo, { env: this.data.chain.committerEnv, messagesDir: this.sandbox.privatePath(".") }),
    );
  }

  initialContext(): Promise<InitialContext> {
    return irContext(this);
  }

  isDone(): boolean {
    return this.data.phase === "done";
  }

  /**
   * The history as the repository holds it. Whether it is finished is read from the repository itself
   * (a rebase left in progress or not), not from the tools' phase: an agent with git of its own may have
   * aborted the paused rebase and rewritten the branch, or started a rebase after the tools' one finished.
   */
  async finalState(): Promise<HistoryFinalState> {
    const inProgress = rebaseLeftInProgress(this.sandbox.repo);
    const pending = !inProgress
      ? null
      : this.data.phase === "planning"
        ? "the rebase was never executed"
        : this.data.phase === "conflict"
          ? `the rebase is stopped on a conflict in commit ${this.data.stoppedAt}`
          : "a rebase begun after the planned one finished is in progress";
    const state = await chainFinalState(this.sandbox, this.data.chain.base, !inProgress, pending);
    return { ...state, rebase_in_progress: inProgress };
  }
}
