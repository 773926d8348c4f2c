import type { Session, ToolEndpoint } from "../agents/agent.js";
import type { ChatMessage, Usage } from "../model/types.js";
import type { Sample } from "../dataset/sample.js";
import type { AnyScenarioDefinition } from "../scenarios/definition.js";
import type { InitialContext, LiveScenario, ScenarioToolResult } from "../scenarios/types.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { FunctionTool } from "../tools/schema.js";
import type { ToolResult } from "../tools/tool.js";
import { escapeControls } from "../util/escape.js";

/** One entry of a sample's trajectory: every tool call and result, every model message. */
export type TrajectoryEntry =
  | { type: "context"; text: string }
  | { type: "model"; message: ChatMessage; usage?: Usage }
  | { type: "tool_call"; tool: string; args: unknown }
  | { type: "tool_result"; tool: string; ok: boolean; output: string; done: boolean }
  | { type: "note"; text: string };

/** One entry of a trajectory with its time since the attempt started, in milliseconds. */
export type TrajectoryEvent = TrajectoryEntry & { at_ms: number };

/** Tools beyond the scenario's (agent memory, say), each answered by its own registry. */
export interface ToolProvider {
  /** True when `name` is one of this provider's tools (a session sends such calls here, not to the scenario). */
  has(name: string): boolean;
  /** The provider's tools as function-calling declarations, offered after the scenario's. */
  functionTools(): FunctionTool[];
  /** Runs one call as `ToolRegistry.call` does: bad calls come back as error results, only faults are thrown. */
  call(name: string, args: unknown): Promise<ToolResult>;
}

/** A registry and the state its tools work on, as a ToolProvider. */
export function toolProvider<W>(registry: ToolRegistry<W>, state: W): ToolProvider {
  return {
    has: (name) => registry.get(name) !== undefined,
    functionTools: () => registry.functionTools(),
    call: (name, args) => registry.call(state, name, args),
  };
}

/**
 * The recording session of one attempt: what an agent works through, and what an MCP client's calls go
 * through when there is no agent in this process. It keeps the trajectory, counts turns, tool calls and
 * tokens, and ends the agent's turns on time-out (its signal) or when the turn budget is spent.
 */
export class AgentSession implements Session {
  readonly events: TrajectoryEvent[] = [];
  readonly usage: Usage = { prompt_tokens: 0, completion_tokens: 0 };
  turns = 0;
  toolCalls = 0;
  /** Set by the runner for an agent whose model calls all pass through gitgood (`Agent.metered`). */
  metered = false;
  /** Some model answer was recorded with its usage (through the agent's client or the run's proxy). */
  private usageSeen = false;
  /** Set by the runner when it serves the tools to an external agent. */
  toolEndpoint: ToolEndpoint | null = null;
  /** Told of every trajectory event as it is recorded (the runner's step log with --memory, its live turns file). */
  observer: ((event: TrajectoryEvent) => void) | null = null;
  private readonly started = Date.now();

  /**
   * What the agent starts from. Its text comes from the repository (file contents, commit messages),
   * so control characters are escaped here, as tool results are; `data` keeps the exact bytes.
   */
  readonly context: InitialContext;

  constructor(
    readonly scenario: LiveScenario,
    context: InitialContext,
    readonly maxTurns: number,
    readonly signal: AbortSignal,
    /** Extra tools offered next to the scenario's (the memory tools with --memory). */
    readonly extra: ToolProvider | null = null,
  ) {
    this.context = { data: context.data, text: escapeControls(context.text) };
    this.note("context", this.context.text);
  }

  /**
   * Whether `usage` counts what the attempt's model calls spent: the agent is metered, or some answer came
   * with its usage. Otherwise (an A2A agent, a program that never asked through the proxy, an MCP client)
   * what it spent is unknown, not 0.
   */
  get usageKnown(): boolean {
    return this.metered || this.usageSeen;
  }

  get definition(): AnyScenarioDefinition {
    return this.scenario.definition;
  }

  get sample(): Sample {
    return this.scenario.sample;
  }

  get tools(): FunctionTool[] {
    return [...this.scenario.functionTools(), ...(this.extra?.functionTools() ?? [])];
  }

  get hasExtraTools(): boolean {
    return this.extra !== null;
  }

  get toolHelp(): string {
    return this.scenario.toolHelp();
  }

  isDone(): boolean {
    return this.scenario.isDone();
  }

  get canContinue(): boolean {
    return !this.signal.aborted && this.turns < this.maxTurns && !this.isDone();
  }

  beginTurn(): void {
    this.turns++;
  }

  async call(tool: string, args: unknown): Promise<ScenarioToolResult> {
    this.toolCalls++;
    this.push({ type: "tool_call", tool, args });
    const result = this.extra?.has(tool)
      ? { ...(await this.extra.call(tool, args)), done: this.isDone() }
      : await this.scenario.callTool(tool, args);
    this.push({ type: "tool_result", tool, ok: result.ok, output: result.output, done: result.done });
    return result;
  }

  /** Adds a call answered outside `call` (by the MCP server or the tool broker themselves) to the trajectory. */
  recordExternalCall(tool: string, args: unknown, result: { ok: boolean; output: string; done: boolean }): void {
    this.toolCalls++;
    this.push({ type: "tool_call", tool, args });
    this.push({ type: "tool_result", tool, ...result });
  }

  /** A command the agent ran in its own shell: a `tool_call` of the tool `shell` and its result, not counted as a tool call of gitgood's. */
  recordShellCommand(command: string, result: { ok: boolean; output: string }): void {
    this.push({ type: "tool_call", tool: "shell", args: command });
    this.push({ type: "tool_result", tool: "shell", ...result, done: false });
  }

  recordModel(message: ChatMessage, usage?: Usage): void {
    if (usage) {
      this.usageSeen = true;
      this.usage.prompt_tokens += usage.prompt_tokens;
      this.usage.completion_tokens += usage.completion_tokens;
    }
    this.push({ type: "model", message, ...(usage ? { usage } : {}) });
  }

  note(type: "context" | "note", text: string): void {
    this.push({ type, text });
  }

  private push(e: TrajectoryEntry): void {
    const event: TrajectoryEvent = { at_ms: Date.now() - this.started, ...e };
    this.events.push(event);
    this.observer?.(event);
  }
}
