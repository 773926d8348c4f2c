import type { Sample } from "../dataset/sample.js";
import type { WorkTreeMode } from "../git/shared-clone.js";
import type { AnyScenarioDefinition, ScenarioSession } from "../scenarios/definition.js";
import type { LiveScenario } from "../scenarios/types.js";
import type { FunctionTool } from "../tools/schema.js";
import type { ChatMessage, Usage } from "../model/types.js";

/**
 * What an agent works with: the scenario, its initial context and tools, a turn budget and a way to
 * stop. Every tool call goes through `call`, which records it; model agents report their messages with
 * `recordModel`, which also counts tokens. The runner's recording session (runs/session.ts) is the one
 * implementation.
 */
export interface Session extends ScenarioSession {
  readonly scenario: LiveScenario;
  readonly definition: AnyScenarioDefinition;
  readonly sample: Sample;
  /** Aborted on the sample's time-out: stop, and pass it to every model request. */
  readonly signal: AbortSignal;
  /** Every tool offered: the scenario's and any extra ones (memory). */
  readonly tools: FunctionTool[];
  /** Extra tools are offered besides the scenario's (the agent memory, with --memory). */
  readonly hasExtraTools: boolean;
  readonly toolHelp: string;
  /** True while the agent may take another turn. */
  readonly canContinue: boolean;
  /** Where the attempt's tools are served to another program (for external agents; null when none are served). */
  readonly toolEndpoint: ToolEndpoint | null;
  /** Adds a model's reply to the trajectory, and its token counts (when the provider reported them) to the attempt's usage. */
  recordModel(message: ChatMessage, usage?: Usage): void;
  /** Adds a line of text to the trajectory: the context the agent was given, or a remark of the agent's driver. */
  note(type: "context" | "note", text: string): void;
  /**
   * Adds a command an external agent ran in its own shell (`git log --all`) to the trajectory, as a call of the
   * tool `shell` followed by its result (how it ended: shell-log.ts).
   */
  recordShellCommand?(command: string, result: { ok: boolean; output: string }): void;
}

/**
 * The tool broker of an attempt: a directory of its own outside the work tree (an isolated program sees it
 * read-only at a fixed path) holding the Unix socket every tool call of the program goes through.
 */
export interface ToolEndpoint {
  readonly dir: string;
  readonly socket: string;
}

/** An agent works a scenario through its session until it is done, gives up, or runs out of turns. */
export interface Agent {
  readonly name: string;
  /**
   * The work tree its sandbox needs: `full` (the default, safe for agents that read files or run
   * programs themselves) or `tools` (it acts only through the scenario's tools, which read files from
   * the object store: only the files the scenario touches are written, and set-up is faster).
   */
  readonly workTree?: WorkTreeMode;
  /**
   * Every model call of the agent passes through gitgood (its own model client, or the run's proxy for a
   * preset), so its records' tokens are what it spent; other agents' usage is known only when some call came
   * through the proxy.
   */
  readonly metered?: boolean;
  /** The agent is another program: the runner serves it the scenario's tools (`session.toolEndpoint`). */
  readonly external?: boolean;
  /** The scenarios it can work (baselines are scenario-specific); without it, every scenario. */
  supports?(scenario: AnyScenarioDefinition): boolean;
  /**
   * Readies what every attempt needs (a CLI agent's installation) before the first one: a run calls it before
   * it writes anything, so a failure stops the run in one line instead of failing each attempt.
   */
  prepare?(): Promise<void>;
  /** Works one attempt: acts on the session's repository through its tools until done or out of budget. */
  run(session: Session): Promise<void>;
}

/** Whether `agent` works `scenario` (an agent that does not say works every one). */
export function agentSupports(agent: Agent, scenario: AnyScenarioDefinition): boolean {
  return typeof agent.supports === "function" ? agent.supports(scenario) : true;
}
