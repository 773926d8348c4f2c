import type { z } from "zod";
import type { Sample } from "../dataset/sample.js";
import type { PackCache } from "../git/packs.js";
import type { Repo } from "../git/repo.js";
import type { WorkTreeMode } from "../git/shared-clone.js";
import type { HistoryDepth } from "../git/store.js";
import type { Scorer } from "../scoring/scorer.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { FunctionTool } from "../tools/schema.js";
import type { ToolResult } from "../tools/tool.js";

export type { CommitRecord, FileContent, HistoryFinalState } from "./shared/schemas.js";

/** What an agent needs to start: structured data, and the same rendered as text for a prompt. */
export interface InitialContext {
  data: Record<string, unknown>;
  text: string;
}

/** A tool result plus whether the scenario's task is finished after the call. */
export interface ScenarioToolResult extends ToolResult {
  done: boolean;
}

/** One scenario set up in a sandbox, with its tools and state machine. */
export interface LiveScenario {
  /** The registry entry this scenario is an instance of. */
  readonly definition: AnyScenarioDefinition;
  readonly sample: Sample;
  readonly sandbox: Sandbox;
  /** The task and starting facts the agent is given before its first call. */
  initialContext(): Promise<InitialContext>;
  /** True once the task is finished (MCR: merge committed; IR: rebase done; ICC: nothing left to commit). */
  isDone(): boolean;
  /** The state scorers read; it satisfies the definition's `finalSchema`. */
  finalState(): Promise<unknown>;
  /**
   * Runs one tool call. An unknown tool, bad arguments or a refusal come back as a result with `ok: false`;
   * it throws only when the scenario is closed, another call is still running, or on a fault of gitgood's own.
   */
  callTool(name: string, args: unknown): Promise<ScenarioToolResult>;
  /** The tools this scenario offers: its definition's, or more when a setting adds optional ones. */
  readonly tools: ToolRegistry<unknown>;
  /** The offered tools as function-calling declarations for a model request. */
  functionTools(): FunctionTool[];
  /** The offered tools described in text, one block per tool, for a prompt. */
  toolHelp(): string;
  /** The names of the offered tools, in the order they are offered. */
  toolNames(): string[];
  /** Removes the sandbox. */
  close(): void;
}

/** What a scripted strategy (an oracle or a baseline) works through: the same calls an agent makes. */
export interface ScenarioSession<L extends LiveScenario = LiveScenario> {
  readonly scenario: L;
  readonly context: InitialContext;
  /** Counts one more turn against the turn limit; an agent calls it as it starts each turn (a model request, a scripted step). */
  beginTurn(): void;
  /** Runs one tool call and records it in the trajectory (see `LiveScenario.callTool` for what throws). */
  call(tool: string, args: unknown): Promise<ScenarioToolResult>;
  /** True once the scenario's task is finished. */
  isDone(): boolean;
}

/** A scripted way to work a scenario, offered as an agent under its name. */
export interface Strategy<L extends LiveScenario = LiveScenario> {
  readonly name: string;
  /** One line for `--help` and the README. */
  readonly description: string;
  /** Works the scenario through `session` and returns when the strategy has nothing more to do. */
  run(session: ScenarioSession<L>): Promise<void>;
}

/** How a scenario's sandbox is made: where, for how long, how much history and which files it holds. */
export interface ScenarioSetupOptions {
  /** Keep the sandbox after this process ends (until `close()` or `gitgood env --finish`). */
  keep?: boolean;
  /** Directory to make the sandbox in. */
  root?: string;
  /** Scenario-specific settings (ICC: `scope`, MCR: `mcrTools`); a scenario reads the ones it knows. */
  settings?: Record<string, unknown>;
  /** First-parent commits of history below the starting point the sandbox gets, or `full` (default: DEFAULT_HISTORY). */
  history?: HistoryDepth;
  /**
   * `full` (default): every file in the work tree, for agents with a shell. `tools`: only the files the
   * scenario touches (conflicted files, the chain's files); the tools read every other file from the
   * object store. For agents that act only through the scenario's tools.
   */
  workTree?: WorkTreeMode;
  /** Packs built for earlier sandboxes of the run, reused when a starting point comes again. */
  packs?: PackCache | null;
}

/** What a sandbox keeps of its scenario between processes. */
export interface SavedScenario {
  schema_version: number;
  /** The scenario's name in the registry. */
  scenario: string;
  sample: Sample;
  /** Absolute path of the source repository. */
  source: string;
  /** The scenario's own state, checked against its `stateSchema`. */
  data: unknown;
}

/**
 * Everything gitgood knows about one kind of scenario, in one object: the runner, the report, the CLI,
 * MCP and `env` derive what they need from it, and nothing outside the registry switches on a
 * scenario's name.
 */
export interface ScenarioDefinition<S extends Sample = Sample, L extends LiveScenario = LiveScenario, F = unknown, D = unknown> {
  /** The one name: in results (`scenario`), result keys, reports, CLI choices (any case) and MCP. */
  readonly name: string;
  /** A few words for listings ("merge conflict resolution"). */
  readonly title: string;
  /**
   * The benchmark the scenario belongs to ("GitGoodBench" for IR, ICC and MCR). A report lists every
   * registered scenario of each family its records come from, as the family's own table does, and no
   * other. Default: the scenario is a family of its own.
   */
  readonly family?: string;
  /**
   * The agent's answer is a patch of the work tree, as in SWE-bench: an A2A participant gets a copy of
   * the repository (REPO_DIR) and the task's text and answers with its diff, instead of the scenario's
   * tools over MCP. Default: false.
   */
  readonly patchTask?: boolean;
  /** Which samples give this scenario. */
  accepts(sample: Sample): sample is S;
  /** The tools an agent works with. */
  readonly tools: ToolRegistry<L>;
  /**
   * Tools a scenario setting can add to `tools` (MCR's `--mcr-tools extended`): known as this scenario's
   * tools everywhere, offered only by a live scenario whose setting asks for them.
   */
  readonly optionalTools?: ToolRegistry<L>;
  /** The agent's task, as a model agent's system prompt states it. */
  readonly prompt: string;
  /** Sets the scenario up in a new sandbox made from `source`. */
  setup(sample: S, source: Repo, opts: ScenarioSetupOptions): Promise<L>;
  /** Re-opens a scenario saved in `sandbox` (its `data` already checked against `stateSchema`). */
  restore(sandbox: Sandbox, sample: S, source: string, data: D): L;
  /** The scenario's saved state. */
  readonly stateSchema: z.ZodType<D>;
  /** The final state an agent leaves: what scorers read, saved in trajectories for re-scoring. */
  readonly finalSchema: z.ZodType<F>;
  readonly scorers: readonly Scorer<S, F>[];
  /**
   * The agent's result next to the ground truth, as text for reports; read while the sandbox is
   * still there (it may hold the agent's objects), with the source repository for the truth.
   */
  groundTruth(scenario: L, final: F, source: Repo): Promise<string>;
  /** Drives the tools to the recorded answer (checks that a scenario can be solved at all). */
  readonly oracle: Strategy<L>;
  /** Simple strategies: the floors an agent should beat. The first is the scenario's part of `baseline`. */
  readonly baselines: readonly Strategy<L>[];
  /** A final state in a few lines for people (`gitgood env --finish`). */
  describeFinal(final: F): string;
  /**
   * Why a failed attempt failed, from its final state and its scorers' values (docs/failure-labels.md): the
   * scenario's own labels, next to those every scenario shares (src/runs/labels.ts). Absent: none of its own.
   * Never throws: the final state may come from an older trajectory.
   */
  failureLabels?(final: unknown, scores: Readonly<Record<string, unknown>>): string[];
}

/** A definition with its type parameters erased, as the registry holds it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyScenarioDefinition = ScenarioDefinition<any, any, any, any>;
