import type { ScenarioKind } from "../scenarios/types.js";
import type { Agent, AgentSession } from "./agent.js";
import type { ChatMessage, ModelClient } from "./model.js";
import { MEMORY_NOTE, NOT_DONE_YET, systemPrompt } from "./prompts.js";

export interface LlmAgentOptions {
  temperature?: number;
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

  constructor(
    private readonly model: ModelClient,
    private readonly opts: LlmAgentOptions = {},
  ) {
    this.name = `llm:${model.model}`;
  }

  supports(_kind: ScenarioKind): boolean {
    return true;
  }

  async run(session: AgentSession): Promise<void> {
    const messages: ChatMessage[] = [
      { role: "system", content: session.extra ? `${systemPrompt(session.kind)}\n\n${MEMORY_NOTE}` : systemPrompt(session.kind) },
      { role: "user", content: session.context.text },
    ];
    let nudges = 0;
    while (session.canContinue) {
      session.beginTurn();
      const reply = await this.model.complete({
        messages,
        tools: session.tools,
        temperature: this.opts.temperature ?? 0,
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
