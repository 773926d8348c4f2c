import type { SweSample } from "../../dataset/sample.js";
import { freshIndexEntries, type IndexRecord } from "../../git/index-file.js";
import { worktreePatch } from "../../git/apply.js";
import { requireCommits } from "../../git/commits.js";
import type { Repo } from "../../git/repo.js";
import { DEFAULT_HISTORY, commitStore } from "../../git/store.js";
import { checkoutBranch } from "../../git/worktree.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import type { Workspace } from "../../sandbox/workspace.js";
import { DEFAULT_COMMAND_TIMEOUT, sweOptionsOf, type SweOptions } from "../../swe/options.js";
import { askInterpreterEarly, shareAttemptStore } from "../../swe/evaluate.js";
import { validateInstance } from "../../swe/validate.js";
import type { AnyScenarioDefinition, ScenarioSetupOptions } from "../definition.js";
import { ScenarioBase, inNewSandbox } from "../shared/base.js";
import type { InitialContext } from "../types.js";
import { sweContext } from "./context.js";
import type { SweData, SweFinalState } from "./state.js";
import type { SweHost } from "./types.js";

const SWE_BRANCH = "gitgood/swe";

/**
 * A SWE-style task: the repository at `base_commit` with no later history (the sandbox's store holds the
 * commit and its past, never the fix or anything after it), the issue, and tools to read, search, edit
 * and run commands. The final state is the work tree's diff against `base_commit`. An instance that
 * fails its own validation is finished at set-up, so no agent works it.
 */
export class SweScenario extends ScenarioBase<SweData> implements SweHost {
  declare readonly sample: SweSample;
  /**
   * The entries of the index the checkout of base_commit wrote at set-up, kept in this process's memory
   * (no program of the attempt can change them): the final state's patch starts from them instead of a
   * `git read-tree`. Null in a scenario restored by another process.
   */
  private baseEntries: readonly IndexRecord[] | null = null;

  constructor(
    definition: AnyScenarioDefinition,
    sandbox: Sandbox,
    sample: SweSample,
    source: string,
    data: SweData,
    readonly options: SweOptions = {},
  ) {
    super(definition, sandbox, sample, source, data);
  }


  static async setup(sample: SweSample, source: Repo, opts: ScenarioSetupOptions, definition: AnyScenarioDefinition): Promise<SweScenario> {
    const options = sweOptionsOf(opts.settings);
    const started = Date.now();
    // The evaluation's interpreter is asked for now, while the store is packed and checked out.
    askInterpreterEarly(sample, options);
    const base = sample.scenario.base_commit;
    await requireCommits(source, [base]);
    const depth = opts.history ?? DEFAULT_HISTORY;
    const store = await commitStore(source, base, depth);
    // The instance's validation and evaluation take this store's pack: the base is packed once.
    if (opts.packs) shareAttemptStore(source, base, store, opts.packs, depth);
    const invalid = options.validate === false ? null : await validateInstance(source, sample, options);
    // Tests and builds need every file, whatever the agent: the work tree is always written whole.
    const where = { label: sample.id, branch: SWE_BRANCH, keep: opts.keep, root: opts.root, store, packs: opts.packs, workTree: "full" as const };
    return inNewSandbox(source, where, async (sandbox) => {
      if (options.isolation) sandbox.isolate(options.isolation);
      await checkoutBranch(sandbox.repo, SWE_BRANCH, base);
      const baseEntries = freshIndexEntries(sandbox.ownGitDir);
      if (invalid === null) askInterpreterEarly(sample, options, sandbox);
      const ready = Date.now();
      const data: SweData = {
        finished: false,
        answer: null,
        invalid: invalid?.reason ?? null,
        hints: options.hints === true,
        setup_s: Math.round((ready - started) / 100) / 10,
        ready_at: ready,
      };
      const scenario = new SweScenario(definition, sandbox, sample, source.dir, data, options);
      scenario.baseEntries = baseEntries;
      return scenario;
    });
  }

  static restore(sandbox: Sandbox, sample: SweSample, source: string, data: SweData, definition: AnyScenarioDefinition): SweScenario {
    return new SweScenario(definition, sandbox, sample, source, data);
  }

  /** Where the SWE tools work: the sandbox's work tree, commands in its isolation. */
  get workspace(): Workspace {
    return this.sandbox;
  }

  get hintsShown(): boolean {
    return this.data.hints;
  }

  get invalidReason(): string | null {
    return this.data.invalid;
  }

  get commandTimeoutSeconds(): number {
    return this.options.commandTimeoutSeconds ?? DEFAULT_COMMAND_TIMEOUT;
  }

  /** Ends the task (the `finish` tool), keeping the agent's text answer. */
  finish(answer: string | null): void {
    this.data.finished = true;
    this.data.answer = answer;
  }

  initialContext(): Promise<InitialContext> {
    return Promise.resolve(sweContext(this));
  }

  isDone(): boolean {
    return this.data.finished || this.data.invalid !== null;
  }

  async finalState(): Promise<SweFinalState> {
    const raw = await worktreePatch(this.sandbox.workDir, this.sandbox.repo.objectsDir, this.sample.scenario.base_commit, this.sandbox.privatePath("diff.git"), this.sandbox.ownGitDir, this.baseEntries);
    const bytes = Buffer.from(raw, "latin1");
    const text = bytes.toString("utf8");
    const utf8 = Buffer.from(text, "utf8").equals(bytes);
    return {
      done: this.isDone(),
      patch: utf8 ? text : bytes.toString("base64"),
      encoding: utf8 ? "utf8" : "base64",
      answer: this.data.answer,
      invalid: this.data.invalid,
      ...(this.data.setup_s !== undefined && this.data.ready_at !== undefined
        ? { timings: { setup_s: this.data.setup_s, agent_s: Math.round((Date.now() - this.data.ready_at) / 100) / 10 } }
        : {}),
    };
  }
}
