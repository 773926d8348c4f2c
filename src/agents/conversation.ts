import type { ChatMessage, ModelClient, ToolCall } from "../model/types.js";
import type { FunctionTool } from "../tools/schema.js";
import type { Session } from "./agent.js";
import { elideOldResults } from "./llm.js";

interface StepOptions {
  /** Tools the model may call in this step (by name); a call of any other is answered with an error. */
  tools: readonly FunctionTool[];
  /** Model calls this step may make at most. */
  maxTurns: number;
  temperature?: number;
  /** Upper bound on the characters of the conversation sent (oldest tool results are elided past it). */
  maxContextChars?: number;
}

/** What a tool call of the model gets back: the tool's output, or why it was not run. */
async function answer(session: Session, call: ToolCall, allowed: ReadonlySet<string>): Promise<string> {
  const name = call.function.name;
  if (!allowed.has(name)) return `error: ${name} is not a tool of this step; the tools are ${[...allowed].join(", ")}`;
  let args: unknown;
  try {
    args = call.function.arguments.trim() === "" ? {} : JSON.parse(call.function.arguments);
  } catch (err) {
    session.note("note", `malformed arguments for ${name}: ${call.function.arguments.slice(0, 200)}`);
    return `error: the arguments of ${name} are not valid JSON (${err instanceof Error ? err.message : String(err)}); send a JSON object`;
  }
  return (await session.call(name, args)).output;
}

/**
 * One step of a scripted loop as a tool-calling conversation: the model is called with `messages`, the
 * tool calls it asks for run through the session (so they are recorded), and their results are fed
 * back, until it answers without a tool call, the step's turns are spent or the session may not go on.
 * `messages` grows with the conversation.
 */
export async function conversationStep(session: Session, model: ModelClient, messages: ChatMessage[], opts: StepOptions): Promise<void> {
  const allowed = new Set(opts.tools.map((t) => t.function.name));
  for (let turn = 0; turn < opts.maxTurns && session.canContinue; turn++) {
    session.beginTurn();
    elideOldResults(messages, opts.maxContextChars ?? 300_000);
    const reply = await model.complete({ messages, tools: opts.tools, temperature: opts.temperature ?? 0, signal: session.signal });
    session.recordModel(reply.message, reply.usage);
    messages.push(reply.message);
    const calls = reply.message.tool_calls ?? [];
    if (calls.length === 0) return;
    for (const call of calls) messages.push({ role: "tool", tool_call_id: call.id, content: await answer(session, call, allowed) });
  }
}
