import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { GitGoodError } from "../../errors.js";
import { SampleSchema, type Sample } from "../../dataset/sample.js";
import { acquireLock } from "../../sandbox/lock.js";
import type { Repo } from "../../git/repo.js";
import { Sandbox, type SandboxOptions } from "../../sandbox/sandbox.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { FunctionTool } from "../../tools/schema.js";
import type {
  FinalState,
  InitialContext,
  LiveScenario,
  ScenarioKind,
  ScenarioToolResult,
} from "../types.js";

export const STATE_FILE = "state.json";
export const STATE_VERSION = 1;

/** What a sandbox keeps between calls (possibly made by different processes). */
export interface SavedScenario<D = unknown> {
  schema_version: number;
  kind: ScenarioKind;
  sample: Sample;
  /** Absolute path of the source repository the sandbox borrows objects from. */
  source: string;
  data: D;
}

export function readSaved(sandbox: Sandbox): SavedScenario {
  const file = sandbox.privatePath(STATE_FILE);
  if (!existsSync(file)) {
    throw new GitGoodError("NO_SANDBOX", `the sandbox ${sandbox.dir} holds no scenario (set-up did not finish)`);
  }
  const raw = JSON.parse(readFileSync(file, "utf8")) as SavedScenario;
  if (raw.schema_version !== STATE_VERSION) {
    throw new GitGoodError("BAD_STATE", `the sandbox was made by another version of gitgood (state ${raw.schema_version})`);
  }
  return { ...raw, sample: SampleSchema.parse(raw.sample) };
}

/**
 * Makes a sandbox for a new scenario and lets `build` set it up; the built scenario is saved, and its
 * sandbox kept for later processes when asked. If anything fails the sandbox is removed.
 */
export async function inNewSandbox<S extends { save(): void }>(
  source: Repo,
  opts: SandboxOptions,
  build: (sandbox: Sandbox) => Promise<S>,
): Promise<S> {
  const sandbox = await Sandbox.create(source, opts);
  try {
    const scenario = await build(sandbox);
    scenario.save();
    if (opts.keep) sandbox.markKept();
    return scenario;
  } catch (err) {
    sandbox.remove();
    throw err;
  }
}

/**
 * What every scenario shares: the saved state (written after set-up and after every tool call, so a
 * later process can carry on), the tool calls, and removal of the sandbox.
 */
export abstract class ScenarioBase<D> implements LiveScenario {
  abstract readonly kind: ScenarioKind;
  private busy = false;
  protected abstract readonly registry: ToolRegistry<this>;

  constructor(
    readonly sandbox: Sandbox,
    readonly sample: Sample,
    readonly source: string,
    protected data: D,
  ) {}

  abstract initialContext(): Promise<InitialContext>;
  abstract isDone(): boolean;
  abstract finalState(): Promise<FinalState>;

  save(): void {
    const saved: SavedScenario<D> = {
      schema_version: STATE_VERSION,
      kind: this.kind,
      sample: this.sample,
      source: this.source,
      data: this.data,
    };
    const file = this.sandbox.privatePath(STATE_FILE);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(saved)}\n`);
    renameSync(tmp, file);
  }

  async callTool(name: string, args: unknown): Promise<ScenarioToolResult> {
    if (this.sandbox.isRemoved) throw new GitGoodError("NO_SANDBOX", "the scenario is closed");
    if (this.busy) throw new GitGoodError("BUSY", "another tool call is still running; call tools one at a time");
    this.busy = true;
    const release = acquireLock(this.sandbox.privatePath("call.lock"));
    try {
      const result = await this.registry.call(this, name, args);
      this.save();
      return { ...result, done: this.isDone() };
    } finally {
      release();
      this.busy = false;
    }
  }

  functionTools(): FunctionTool[] {
    return this.registry.functionTools();
  }

  toolHelp(): string {
    return this.registry.help();
  }

  toolNames(): string[] {
    return this.registry.names();
  }

  close(): void {
    this.sandbox.remove();
  }
}
