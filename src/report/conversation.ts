import { z } from "zod";
import { NOT_DONE_YET, systemPrompt } from "../agents/prompts.js";
import type { ChatMessage, ToolCall } from "../model/types.js";
import type { Trajectory } from "../runs/trajectory.js";
import { scenarioNamed } from "../scenarios/registry.js";
import type { FunctionTool } from "../tools/schema.js";

/**
 * The events of a trajectory as the exports read them. Each kind is checked on its own; an event of
 * another shape (a newer kind, a damaged one) is skipped rather than losing the attempt.
 */
const UsageSchema = z.object({ prompt_tokens: z.number(), completion_tokens: z.number(), cached: z.boolean().optional() });
const ToolCallSchema = z.object({ id: z.string(), type: z.literal("function"), function: z.object({ name: z.string(), arguments: z.string() }) });
const EventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("context"), text: z.string(), at_ms: z.number().optional() }),
  z.object({ type: z.literal("note"), text: z.string(), at_ms: z.number().optional() }),
  z.object({
    type: z.literal("model"),
    at_ms: z.number().optional(),
    message: z.object({ role: z.literal("assistant"), content: z.string().nullable(), tool_calls: z.array(ToolCallSchema).optional() }),
    usage: UsageSchema.optional(),
  }),
  z.object({ type: z.literal("tool_call"), tool: z.string(), args: z.unknown(), at_ms: z.number().optional() }),
  z.object({ type: z.literal("tool_result"), tool: z.string(), ok: z.boolean(), output: z.string(), done: z.boolean(), at_ms: z.number().optional() }),
]);
export type AttemptEvent = z.infer<typeof EventSchema>;
export type ModelUsage = z.infer<typeof UsageSchema>;

/** The events of a trajectory that have a known shape, in order. */
export function eventsOf(trajectory: Pick<Trajectory, "events">): AttemptEvent[] {
  const out: AttemptEvent[] = [];
  for (const e of trajectory.events) {
    const parsed = EventSchema.safeParse(e);
    if (parsed.success) out.push(parsed.data);
  }
  return out;
}

/** One tool call of a turn, with the result it got (null: the trajectory recorded none). */
export interface TurnCall {
  id: string;
  name: string;
  /** The arguments as the model wrote them (JSON text; possibly not valid JSON). */
  arguments: string;
  result: { ok: boolean; output: string } | null;
  at_ms: number | null;
  /** When the result came back (null: not recorded). */
  done_ms: number | null;
}

/**
 * One turn of an attempt: the assistant's message (null for an external agent, whose model gitgood does
 * not see) with its usage, and the tool calls it made with their results.
 */
export interface Turn {
  content: string | null;
  usage: ModelUsage | null;
  at_ms: number | null;
  /** Milliseconds since the previous event: the model's latency for a model turn. */
  latency_ms: number | null;
  calls: TurnCall[];
  /** Notes recorded during the turn (malformed arguments, an external agent's output). */
  notes: string[];
}

/** An attempt as a conversation: the task the agent got, then its turns. */
export interface Conversation {
  /** The llm agent's system prompt for the scenario; null for an agent whose prompt gitgood does not write. */
  system: string | null;
  /** The initial context (the task) as the agent got it. */
  task: string;
  turns: Turn[];
  /** The tools offered, in the function-calling shape (null: the scenario is not registered). */
  tools: FunctionTool[] | null;
  /** What the llm agent tells the model when it stops calling tools too early (null for other agents). */
  nudge: string | null;
}

const stringify = (args: unknown): string => (typeof args === "string" ? args : JSON.stringify(args ?? {}));

/** Whether the trajectory's agent is gitgood's own llm agent (its system prompt is known). */
function ownPrompt(agent: string): boolean {
  return agent === "llm" || agent.startsWith("llm:") || agent.startsWith("llm+") || agent.startsWith("llm ");
}

type Definition = ReturnType<typeof scenarioNamed>;
const prompts = new WeakMap<Definition, string>();
const toolLists = new WeakMap<Definition, FunctionTool[]>();

/** A scenario's system prompt, made once per scenario (a run's thousands of attempts share it). */
function promptOf(definition: Definition): string {
  const known = prompts.get(definition);
  if (known !== undefined) return known;
  const made = systemPrompt(definition);
  prompts.set(definition, made);
  return made;
}

/** A scenario's tools in the function-calling shape, made once per scenario. */
function toolsOf(definition: Definition): FunctionTool[] {
  const known = toolLists.get(definition);
  if (known !== undefined) return known;
  const made = definition.tools.functionTools();
  toolLists.set(definition, made);
  return made;
}

/**
 * Rebuilds the conversation of an attempt from its events. A model turn's tool calls are answered by
 * the tool results that follow it, matched by tool name in order; a call whose arguments were not
 * valid JSON is answered by the note saying so. Tool calls with no model turn before them (an external
 * or MCP agent) become turns of their own with ids `call_N`.
 */
export function conversationOf(trajectory: Pick<Trajectory, "scenario" | "agent" | "events">, known?: readonly AttemptEvent[]): Conversation {
  let definition: ReturnType<typeof scenarioNamed> | null = null;
  try {
    definition = scenarioNamed(trajectory.scenario);
  } catch {
    definition = null;
  }
  const events = known ?? eventsOf(trajectory);
  const turns: Turn[] = [];
  let task = "";
  let current: Turn | null = null;
  let pending: { name: string; args: unknown; at_ms: number | null } | null = null;
  let previousAt: number | null = null;
  let synthetic = 0;
  for (const e of events) {
    const at = e.at_ms ?? null;
    if (e.type === "context") {
      if (task === "") task = e.text;
      else (current?.notes ?? []).push(e.text);
    } else if (e.type === "note") {
      const malformed = /^malformed arguments for (\S+):/.exec(e.text);
      const unanswered = malformed && current?.calls.find((c) => c.name === malformed[1] && c.result === null);
      if (unanswered) {
        unanswered.result = { ok: false, output: e.text };
        unanswered.done_ms = at;
      }
      else if (current) current.notes.push(e.text);
      else turns.push((current = { content: null, usage: null, at_ms: at, latency_ms: null, calls: [], notes: [e.text] }));
    } else if (e.type === "model") {
      current = {
        content: e.message.content,
        usage: e.usage ?? null,
        at_ms: at,
        latency_ms: at !== null && previousAt !== null ? at - previousAt : null,
        calls: (e.message.tool_calls ?? []).map((c: ToolCall) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments, result: null, at_ms: at, done_ms: null })),
        notes: [],
      };
      turns.push(current);
    } else if (e.type === "tool_call") {
      pending = { name: e.tool, args: e.args, at_ms: at };
    } else {
      const call = current?.calls.find((c) => c.name === e.tool && c.result === null);
      if (call) {
        call.result = { ok: e.ok, output: e.output };
        call.done_ms = at;
      } else {
        // A call no model turn made (an external or MCP agent): a turn of its own.
        synthetic++;
        const made: TurnCall = {
          id: `call_${synthetic}`,
          name: e.tool,
          arguments: stringify(pending?.name === e.tool ? pending.args : {}),
          result: { ok: e.ok, output: e.output },
          at_ms: pending?.at_ms ?? at,
          done_ms: at,
        };
        turns.push((current = { content: null, usage: null, at_ms: made.at_ms, latency_ms: null, calls: [made], notes: [] }));
      }
      pending = null;
    }
    if (at !== null) previousAt = at;
  }
  const own = definition !== null && ownPrompt(trajectory.agent);
  return {
    system: own && definition ? promptOf(definition) : null,
    nudge: own ? NOT_DONE_YET : null,
    task,
    turns,
    tools: definition ? toolsOf(definition) : null,
  };
}

/** The text a tool call got back, or what the trajectory says when there is none. */
export function resultText(call: TurnCall): string {
  return call.result ? call.result.output : "(no result was recorded for this call)";
}

/**
 * The conversation in OpenAI's chat layout: system (when known), the task as the user's message, each
 * turn as an assistant message (with its tool calls) followed by one tool message per call.
 */
export function chatMessages(conv: Conversation): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (conv.system !== null) out.push({ role: "system", content: conv.system });
  out.push({ role: "user", content: conv.task });
  for (const [i, turn] of conv.turns.entries()) {
    if (turn.calls.length === 0 && turn.content === null) continue;
    const previous = out.at(-1);
    // The llm agent answers a turn without tool calls, when the task is not done, with its nudge.
    if (i > 0 && conv.nudge !== null && previous?.role === "assistant" && !previous.tool_calls) out.push({ role: "user", content: conv.nudge });
    const calls: ToolCall[] = turn.calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }));
    out.push(calls.length > 0 ? { role: "assistant", content: turn.content, tool_calls: calls } : { role: "assistant", content: turn.content });
    for (const c of turn.calls) out.push({ role: "tool", tool_call_id: c.id, content: resultText(c) });
  }
  return out;
}
