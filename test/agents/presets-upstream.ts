import { fakeUpstream, type FakeUpstream, type SeenRequest, type UpstreamReply } from "../proxy/fake-upstream.js";

/** One step of a scripted agent: a call of a tool (found among the tools the agent offers by its name in any case, or by the end of its name). */
export interface ScriptStep {
  tool: string;
  args: Record<string, unknown>;
}

export const USAGE = { input: 300, output: 40 };

type Json = Record<string, unknown>;

/** How many tool results the conversation holds: the step the agent is at. */
function resultsIn(body: Json): number {
  const text = JSON.stringify(body.messages ?? []);
  return (text.match(/"tool_result"|"role":"tool"/g) ?? []).length;
}

function toolNames(body: Json): string[] {
  return ((body.tools as Json[] | undefined) ?? []).map((t) => String((t.function as Json | undefined)?.name ?? t.name ?? ""));
}

function anthropicStream(model: string, blocks: Json[]): UpstreamReply {
  const events: Array<{ event: string; data: unknown }> = [];
  const e = (event: string, data: Json): void => void events.push({ event, data: { type: event, ...data } });
  e("message_start", { message: { id: "msg_1", type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: USAGE.input, output_tokens: 1 } } });
  blocks.forEach((b, index) => {
    if (b.type === "text") {
      e("content_block_start", { index, content_block: { type: "text", text: "" } });
      e("content_block_delta", { index, delta: { type: "text_delta", text: b.text } });
    } else {
      e("content_block_start", { index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
      e("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
    }
    e("content_block_stop", { index });
  });
  e("message_delta", { delta: { stop_reason: blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: USAGE.output } });
  e("message_stop", {});
  return { events };
}

function chatStream(model: string, delta: Json, finish: string): UpstreamReply {
  const chunk = (d: Json): { data: unknown } => ({ data: { id: "c1", object: "chat.completion.chunk", created: 0, model, ...d } });
  return {
    events: [
      chunk({ choices: [{ index: 0, delta: { role: "assistant", ...delta }, finish_reason: null }] }),
      chunk({ choices: [{ index: 0, delta: {}, finish_reason: finish }] }),
      chunk({ choices: [], usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output } }),
    ],
    done: true,
  };
}

/**
 * A model endpoint that drives an agent through `script`: a request offering tools gets the step given by
 * the number of tool results so far (then a last word, "Done."); a request without tools (a title, say)
 * gets a short text. It answers the Anthropic Messages API and OpenAI chat completions, streamed or whole.
 */
export function scriptedUpstream(script: ScriptStep[]): Promise<FakeUpstream> {
  return fakeUpstream((req: SeenRequest): UpstreamReply => {
    const body = (req.body ?? {}) as Json;
    const model = String(body.model ?? "m");
    const names = toolNames(body);
    const step = names.length > 0 ? script[resultsIn(body)] : undefined;
    const name = step ? (names.find((n) => n.toLowerCase() === step.tool.toLowerCase() || n.endsWith(`__${step.tool}`) || n.endsWith(`_${step.tool}`)) ?? step.tool) : null;
    const anthropic = req.path.includes("/messages");
    const text = names.length > 0 ? "Done." : "A title";
    if (anthropic) {
      const blocks = step ? [{ type: "tool_use", id: `toolu_${resultsIn(body)}`, name, input: step.args }] : [{ type: "text", text }];
      if (body.stream === true) return anthropicStream(model, blocks);
      return { json: { id: "msg_1", type: "message", role: "assistant", model, content: blocks, stop_reason: step ? "tool_use" : "end_turn", usage: { input_tokens: USAGE.input, output_tokens: USAGE.output } } };
    }
    const delta = step ? { tool_calls: [{ index: 0, id: `call_${resultsIn(body)}`, type: "function", function: { name, arguments: JSON.stringify(step.args) } }] } : { content: text };
    if (body.stream === true) return chatStream(model, delta, step ? "tool_calls" : "stop");
    const message = step ? { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name, arguments: JSON.stringify(step.args) } }] } : { role: "assistant", content: text };
    return { json: { id: "c1", object: "chat.completion", created: 0, model, choices: [{ index: 0, message, finish_reason: step ? "tool_calls" : "stop" }], usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output } } };
  }, false);
}
