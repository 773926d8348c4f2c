import { createHash } from "node:crypto";
import type { Prices } from "../model/prices.js";
import type { Conversation, ModelUsage, Turn } from "../report/conversation.js";
import type { FunctionTool } from "../tools/schema.js";
import { turnCost } from "./models.js";

type Json = Record<string, unknown>;

/** Text longer than this in a model event's input is kept once, in the sample's attachments (as Inspect does). */
const ATTACHMENT_OVER = 100;
const ATTACHMENT = "attachment://";
/** What Inspect's reader takes for a reference to an attachment (`attachment://`, and the older `tc://`). */
const REFERENCE = /^(attachment|tc):\/\//;

/**
 * A sample's attachments: texts kept once and referred to as `attachment://KEY`. Inspect's reader replaces
 * every text of a message, tool call or event that looks like a reference with the attachment it names, so
 * text written by an agent or a repository that looks like one is kept as an attachment of its own (else it
 * could show another text of the sample in its place).
 */
export class Attachments {
  readonly texts: Record<string, string> = {};

  /** The text as written into the sample: a reference when it is long and `condense` is asked, or when it looks like one. */
  ref(text: string, condense = false): string {
    if (!(condense && text.length > ATTACHMENT_OVER) && !REFERENCE.test(text)) return text;
    const key = createHash("sha256").update(text).digest("hex").slice(0, 32);
    this.texts[key] = text;
    return `${ATTACHMENT}${key}`;
  }
}

/** A JSON value with every string in it, however deep, passed through `text`. */
function mapStrings(value: unknown, text: (s: string) => string): unknown {
  if (typeof value === "string") return text(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, text));
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, text)]));
  return value;
}

/** A message with its text and every string of its tool calls' arguments passed through `text`. */
export function mapMessageText(m: Json, text: (s: string) => string): Json {
  const out: Json = { ...m };
  if (typeof m.content === "string") out.content = text(m.content);
  if (Array.isArray(m.tool_calls)) out.tool_calls = (m.tool_calls as Json[]).map((c) => ({ ...c, arguments: mapStrings(c.arguments ?? {}, text) }));
  return out;
}

/** Inspect's usage record of some tokens, with their cost when known. */
export function inspectUsage(prompt: number, completion: number, costUsd: number | null = null): Json {
  return { input_tokens: prompt, output_tokens: completion, total_tokens: prompt + completion, ...(costUsd !== null ? { total_cost: costUsd } : {}) };
}

/**
 * The keys of Inspect's `JSONSchema` model. A tool's parameter schema is rewritten to these, each node with
 * its `default` (null when it has none), as Inspect writes them.
 */
const SCHEMA_KEYS = ["type", "format", "description", "default", "enum", "items", "properties", "additionalProperties", "anyOf", "required", "minimum", "maximum", "minLength", "maxLength", "pattern"];

function inspectSchema(node: unknown): unknown {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return node;
  const source = node as Json;
  const out: Json = { default: null };
  for (const key of SCHEMA_KEYS) {
    const value = source[key];
    if (value === undefined) continue;
    if (key === "items" || (key === "additionalProperties" && typeof value === "object")) out[key] = inspectSchema(value);
    else if (key === "properties" && typeof value === "object" && value !== null) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inspectSchema(v)]));
    else if (key === "anyOf" && Array.isArray(value)) out[key] = value.map(inspectSchema);
    else out[key] = value;
  }
  return out;
}

/** The scenario's tools as Inspect's `ToolInfo`. */
function toolInfos(tools: readonly FunctionTool[] | null): Json[] {
  return (tools ?? []).map((t) => {
    const params = t.function.parameters;
    const properties = (params.properties ?? {}) as Record<string, unknown>;
    return {
      name: t.function.name,
      description: t.function.description,
      parameters: {
        type: "object",
        properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, inspectSchema(v)])),
        required: Array.isArray(params.required) ? params.required : [],
        additionalProperties: false,
      },
    };
  });
}

/** What a sample's transcript is made from: the attempt's conversation and its chat messages in Inspect's layout. */
export interface TranscriptInput {
  conv: Conversation;
  /** The messages of the conversation (`inspectMessages`), each with an `id`, their texts through `attachments`. */
  messages: Json[];
  attachments: Attachments;
  /** When the attempt started (ISO), and how long it took. */
  startedAt: string;
  durationMs: number;
  /** The agent's model as Inspect names it (`provider/model`). */
  model: string;
  prices: Prices | null;
  /** The score events' scores, by scorer name, and the target. */
  scores: Record<string, Json>;
  target: string;
}

/**
 * An attempt's transcript as Inspect's events: the sample's start, then per turn a model event (the
 * messages the model had been given, its answer, the turn's tokens and cost, when it was asked and how
 * long it took) and a tool event per call (arguments, result, error), notes as info events, and a score
 * event per scorer at the end. An agent whose model gitgood does not see (external, MCP) has tool events
 * only. Long texts of the model events' input are attachments, as Inspect keeps them.
 */
export function inspectTranscript(input: TranscriptInput): Json[] {
  const start = Date.parse(input.startedAt);
  const known = !Number.isNaN(start);
  const at = (ms: number | null): { timestamp: string; working_start: number } => ({
    timestamp: known ? new Date(start + (ms ?? 0)).toISOString() : input.startedAt,
    working_start: (ms ?? 0) / 1000,
  });
  const store = input.attachments;
  // The messages already went through the store: a reference in them stays one (Inspect resolves it once).
  const attach = (text: string): string => (text.startsWith(ATTACHMENT) ? text : store.ref(text, true));
  const condensed = input.messages.map((m) => mapMessageText(m, attach));
  const tools = toolInfos(input.conv.tools).map((t) => ({ ...t, description: attach(t.description as string) }));
  const assistants = input.messages.flatMap((m, i) => (m.role === "assistant" ? [i] : []));
  const events: Json[] = [
    {
      event: "sample_init",
      ...at(0),
      sample: { input: store.ref(input.conv.task), target: input.target },
      state: { messages: input.messages.slice(0, assistants[0] ?? input.messages.length) },
    },
  ];
  const argumentsOf = new Map(input.messages.flatMap((m) => ((m.tool_calls as Json[] | undefined) ?? []).map((c) => [c.id, c.arguments] as const)));
  let answered = 0;
  let lastMs = 0;
  for (const turn of input.conv.turns) {
    if (turn.usage !== null || turn.content !== null) {
      // The model's answer is the next assistant message (a turn with neither text nor calls has none).
      const index = assistants[answered];
      const speaks = turn.calls.length > 0 || turn.content !== null;
      events.push(modelEvent(turn, index === undefined ? condensed : condensed.slice(0, index), speaks && index !== undefined ? (condensed[index] ?? null) : null, tools, input, at));
    }
    if (turn.calls.length > 0 || turn.content !== null) answered++;
    for (const call of turn.calls) {
      const done = call.done_ms ?? call.at_ms;
      events.push({
        event: "tool",
        ...at(call.at_ms),
        type: "function",
        id: call.id,
        function: call.name,
        arguments: argumentsOf.get(call.id) ?? {},
        result: store.ref(call.result?.output ?? ""),
        events: [],
        ...(done !== null ? { completed: at(done).timestamp, working_time: Math.max(0, done - (call.at_ms ?? done)) / 1000 } : {}),
        ...(call.result && !call.result.ok ? { error: { type: /^malformed arguments/.test(call.result.output) ? "parsing" : "unknown", message: store.ref(call.result.output) } } : {}),
      });
      if (done !== null) lastMs = Math.max(lastMs, done);
    }
    if (turn.at_ms !== null) lastMs = Math.max(lastMs, turn.at_ms);
    // A turn's notes are shown after its calls, timed no earlier than they ended.
    for (const note of turn.notes) events.push({ event: "info", ...at(lastMs), source: "gitgood", data: store.ref(note) });
  }
  const end = at(Math.max(input.durationMs, lastMs));
  for (const [scorer, score] of Object.entries(input.scores)) events.push({ event: "score", ...end, scorer, score, target: input.target, intermediate: false });
  return events;
}

/** A model turn as Inspect's model event. */
function modelEvent(
  turn: Turn,
  given: Json[],
  answer: Json | null,
  tools: Json[],
  input: TranscriptInput,
  at: (ms: number | null) => { timestamp: string; working_start: number },
): Json {
  const asked = turn.at_ms !== null && turn.latency_ms !== null ? turn.at_ms - turn.latency_ms : turn.at_ms;
  const message = answer ?? { role: "assistant", content: turn.content ?? "" };
  const usage: ModelUsage | null = turn.usage;
  return {
    event: "model",
    ...at(asked),
    model: input.model,
    input: given,
    tools,
    tool_choice: "auto",
    config: {},
    output: {
      model: input.model,
      choices: [{ message, stop_reason: turn.calls.length > 0 ? "tool_calls" : "stop" }],
      completion: turn.content ?? "",
      ...(usage ? { usage: inspectUsage(usage.prompt_tokens, usage.completion_tokens, turnCost(usage, input.prices)) } : {}),
      ...(turn.latency_ms !== null ? { time: turn.latency_ms / 1000 } : {}),
    },
    ...(usage?.cached ? { cache: "read" } : {}),
    ...(turn.at_ms !== null ? { completed: at(turn.at_ms).timestamp } : {}),
    ...(turn.latency_ms !== null ? { working_time: turn.latency_ms / 1000 } : {}),
  };
}
