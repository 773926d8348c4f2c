import type { Agent, Session } from "./agent.js";
import type { ChatMessage, ModelClient } from "../model/types.js";
import { MEMORY_NOTE, NOT_DONE_YET, systemPrompt } from "./prompts.js";

/** How an `LlmAgent` talks to its model: sampling temperature, how much conversation it sends, how often it is nudged on. */
export interface LlmAgentOptions {
  temperature?: number;
  /**
   * Upper bound on the characters of the conversation sent to the model; past it, the oldest tool
   * results are replaced by a short note (the agent can call the tool again). Default 300,000.
   */
  maxContextChars?: number;
  /** How often the agent is told to go on after it stops calling tools too early. */
  maxNudges?: number;
}

/**
 * A tool-calling agent over any chat-completions model. Each turn is one model call; the tool calls it
 * asks for are run in order and their results fed back. Malformed tool calls (bad JSON, unknown tools,
 * bad arguments) come back to the model as error results, so it can correct itself.
 */
export class LlmAgent implements Agent {
  readonly name: string;
  readonly workTree = "tools";
  readonly metered = true;

  constructor(
    private readonly model: ModelClient,
    private readonly opts: LlmAgentOptions = {},
  ) {
    this.name = `llm:${model.model}`;
  }

  async run(session: Session): Promise<void> {
    const messages: ChatMessage[] = [
      { role: "system", content: session.hasExtraTools ? `${systemPrompt(session.definition)}\n\n${MEMORY_NOTE}` : systemPrompt(session.definition) },
      { role: "user", content: session.context.text },
    ];
    let nudges = 0;
    while (session.canContinue) {
      session.beginTurn();
      elideOldResults(messages, this.opts.maxContextChars ?? 300_000);
      const reply = await this.model.complete({
        messages,
        tools: session.tools,
        temperature: this.opts.temperature ?? 0,
        signal: session.signal,
      });
      session.recordModel(reply.message, reply.usage);
      messages.push(reply.message);
      const calls = reply.message.tool_calls ?? [];
      if (calls.length === 0) {
        if (session.isDone() || nudges >= (this.opts.maxNudges ?? 2)) return;
        nudges++;
        messages.push({ role: "user", content: NOT_DONE_YET });
        continue;
      }
      for (const call of calls) {
        let output: string;
        let args: unknown;
        try {
          args = call.function.arguments.trim() === "" ? {} : JSON.parse(call.function.arguments);
        } catch (err) {
          const why = err instanceof Error ? err.message : String(err);
          output = `error: the arguments of ${call.function.name} are not valid JSON (${why}); send a JSON object`;
          session.note("note", `malformed arguments for ${call.function.name}: ${call.function.arguments.slice(0, 200)}`);
          messages.push({ role: "tool", tool_call_id: call.id, content: output });
          continue;
        }
        const result = await session.call(call.function.name, args);
        messages.push({ role: "tool", tool_call_id: call.id, content: result.output });
      }
      if (session.isDone()) return;
    }
  }
}

/** Characters of a conversation as sent (contents and tool-call arguments). */
function size(messages: readonly ChatMessage[]): number {
  let n = 0;
  for (const m of messages) {
    n += m.content?.length ?? 0;
    if (m.role === "assistant") for (const c of m.tool_calls ?? []) n += c.function.arguments.length;
  }
  return n;
}

/**
 * Keeps a long conversation within `limit` characters by replacing the oldest tool results (never the
 * last one) with a note saying how to see them again. The system prompt and the task stay whole.
 */
export function elideOldResults(messages: ChatMessage[], limit: number): void {
  let total = size(messages);
  if (total <= limit) return;
  const lastTool = messages.map((m) => m.role).lastIndexOf("tool");
  for (let i = 0; i < lastTool && total > limit; i++) {
    const m = messages[i];
    if (!m || m.role !== "tool" || m.content.startsWith("[earlier output elided")) continue;
    const note = `[earlier output elided to keep the conversation short (${m.content.length} characters); call the tool again to see it]`;
    total -= m.content.length - note.length;
    messages[i] = { ...m, content: note };
  }
}
