import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { GitGoodError } from "../../errors.js";
import { SampleSchema, type Sample } from "../../dataset/sample.js";
import { acquireLock } from "../../sandbox/call-lock.js";
import { Repo } from "../../git/repo.js";
import type { StorePlan } from "../../git/store.js";
import { Sandbox, type SandboxOptions } from "../../sandbox/sandbox.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { FunctionTool } from "../../tools/schema.js";
import type { AnyScenarioDefinition, SavedScenario, ScenarioSetupOptions } from "../definition.js";
import type { InitialContext, LiveScenario, ScenarioToolResult } from "../types.js";

const STATE_FILE = "state.json";
/** Version of the saved scenario state; a sandbox saved by another version is refused, not misread. */
const STATE_VERSION = 4;

const SavedScenarioSchema = z.object({
  schema_version: z.number().int(),
  scenario: z.string(),
  sample: SampleSchema,
  source: z.string(),
  data: z.unknown(),
});

/** Reads the saved scenario of a sandbox (its `data` is checked by the scenario's own schema later). */
export function readSaved(sandbox: Sandbox): SavedScenario {
  const file = sandbox.privatePath(STATE_FILE);
  if (!existsSync(file)) {
    throw new GitGoodError("NO_SANDBOX", `the sandbox ${sandbox.dir} holds no scenario (set-up did not finish)`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    throw new GitGoodError("BAD_STATE", `the scenario state in ${sandbox.dir} is damaged (not JSON)`);
  }
  const version = (raw as { schema_version?: unknown } | null)?.schema_version;
  if (version !== STATE_VERSION) {
    throw new GitGoodError("BAD_STATE", `the sandbox was made by another version of gitgood (state ${String(version)})`);
  }
  const parsed = SavedScenarioSchema.safeParse(raw);
  if (!parsed.success) throw new GitGoodError("BAD_STATE", `the scenario state in ${sandbox.dir} is damaged`);
  return parsed.data;
}

/**
 * Where a Git-work scenario (one whose answer is commits and trees: MCR, IR, ICC) is set up: a sandbox
 * named for the sample, on the scenario's branch, with the run's store, packs and work-tree mode, whose
 * files are kept exactly as the repository stores them (`storedBytes`: a project's attributes convert
 * nothing, so the starting point is clean and an agent's commits hold what it wrote).
 */
export function gitWorkSandbox(sampleId: string, branch: string, store: StorePlan, opts: ScenarioSetupOptions): SandboxOptions {
  return { label: sampleId, branch, keep: opts.keep, root: opts.root, store, packs: opts.packs, workTree: opts.workTree, storedBytes: true };
}

/**
 * Makes a sandbox for a new scenario and lets `build` set it up; the built scenario is saved, and its
 * sandbox kept for later processes when asked. If anything fails the sandbox is removed.
 */
export async function inNewSandbox<
  S extends {
    /** Writes the scenario's state into its sandbox. */
    save(): void;
    /** Keeps the source repository handle set-up used. */
    holdSource?(source: Repo): void;
  },
>(
  source: Repo,
  opts: SandboxOptions,
  build: (sandbox: Sandbox) => Promise<S>,
): Promise<S> {
  const sandbox = await Sandbox.create(source, opts);
  try {
    const scenario = await build(sandbox);
    scenario.holdSource?.(source);
    scenario.save();
    sandbox.publishFresh();
    if (opts.keep) sandbox.markKept();
    return scenario;
  } catch (err) {
    sandbox.remove();
    throw err;
  }
}

/** A line for the agent when its repository's `.git` could not be brought up to date (see `Sandbox.publish`). */
function viewNote(problems: readonly string[]): string {
  if (problems.length === 0) return "";
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
  return `\n[gitgood] .git in the work tree was changed in a way gitgood does not write through, so it does not show this step: ${problems[0]}${more}. gitgood's own record of the repository is unaffected.`;
}

/**
 * What every scenario shares: the saved state (written after set-up and after every tool call, so a
 * later process can carry on), the tool calls, and removal of the sandbox.
 */
export abstract class ScenarioBase<D> implements LiveScenario {
  private busy = false;
  /** The handle on the source the scenario was set up from, while this process has it. */
  private sourceRepo: Repo | null = null;

  constructor(
    /** The registry entry this scenario is an instance of (`defineScenario` gives it to set-up and re-opening). */
    readonly definition: AnyScenarioDefinition,
    readonly sandbox: Sandbox,
    readonly sample: Sample,
    readonly source: string,
    protected data: D,
  ) {}

  abstract initialContext(): Promise<InitialContext>;
  abstract isDone(): boolean;
  abstract finalState(): Promise<unknown>;

  /** Keeps the handle on the source repository set-up read (a run's, with its reader) for `openSource`. */
  holdSource(source: Repo): void {
    this.sourceRepo = source;
  }

  /** The source repository: the handle set-up used, or opened now (a scenario restored by another process). */
  async openSource(): Promise<Repo> {
    this.sourceRepo ??= await Repo.open(this.source);
    return this.sourceRepo;
  }

  /** Writes the scenario's state into the sandbox's private directory (atomically), for a later process to re-open. */
  save(): void {
    const saved: SavedScenario = {
      schema_version: STATE_VERSION,
      scenario: this.definition.name,
      sample: this.sample,
      source: this.source,
      data: this.data,
    };
    const file = this.sandbox.privatePath(STATE_FILE);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(saved)}\n`);
    renameSync(tmp, file);
  }

  /**
   * Runs one tool call through the scenario's tools and publishes the result to the work tree's `.git`. Throws
   * `NO_SANDBOX` once closed and `BUSY` while another call of this object runs; a call's own failure is a result.
   */
  async callTool(name: string, args: unknown): Promise<ScenarioToolResult> {
    if (this.sandbox.isRemoved) throw new GitGoodError("NO_SANDBOX", "the scenario is closed");
    if (this.busy) throw new GitGoodError("BUSY", "another tool call is still running; call tools one at a time");
    this.busy = true;
    // Between processes (`gitgood tool` calls on a kept sandbox) a lock file orders the calls and the
    // saved state carries each one's result to the next; a sandbox this process holds alone needs neither.
    const shared = !this.sandbox.isHeldAlone;
    const release = shared ? acquireLock(this.sandbox.privatePath("call.lock")) : null;
    try {
      const result = await this.tools.call(this, name, args);
      if (shared) this.save();
      const problems = this.sandbox.publish();
      return { ...result, output: result.output + viewNote(problems), done: this.isDone() };
    } finally {
      release?.();
      this.busy = false;
    }
  }

  /** The definition's tools; a scenario whose settings add optional tools overrides this. */
  get tools(): ToolRegistry<unknown> {
    return this.definition.tools as ToolRegistry<unknown>;
  }

  /** The offered tools as function-calling declarations. */
  functionTools(): FunctionTool[] {
    return this.tools.functionTools();
  }

  /** The offered tools described in text for a prompt. */
  toolHelp(): string {
    return this.tools.help();
  }

  /** The names of the offered tools. */
  toolNames(): string[] {
    return this.tools.names();
  }

  /** Removes the sandbox, kept or not. */
  close(): void {
    this.sandbox.remove();
  }
}
