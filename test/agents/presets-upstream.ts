import { fakeUpstream, type FakeUpstream, type SeenRequest, type UpstreamReply } from "../proxy/fake-upstream.js";

/** One step of a scripted agent: a call of a tool (found among the tools the agent offers by its name in any case, or by the end of its name). */
export interface ScriptStep {
  tool: string;
  args: Record<string, unknown>;
}

export const USAGE = { input: 300, output: 40 };

type Json = Record<string, unknown>;

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

/** A Responses stream of one output item, ending in response.completed with `tokens` (by default USAGE, none read from a cache). */
export function responseStream(model: string, item: Json, tokens: { input: number; output: number; cached?: number } = USAGE): UpstreamReply {
  const usage = { input_tokens: tokens.input, input_tokens_details: { cached_tokens: tokens.cached ?? 0 }, output_tokens: tokens.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: tokens.input + tokens.output };
  const response = { id: "resp_1", object: "response", created_at: 0, status: "completed", model, output: [item], usage };
  const e = (type: string, data: Json): { event: string; data: unknown } => ({ event: type, data: { type, ...data } });
  return {
    events: [
      e("response.created", { response: { ...response, status: "in_progress", output: [], usage: null } }),
      e("response.output_item.added", { output_index: 0, item }),
      e("response.output_item.done", { output_index: 0, item }),
      e("response.completed", { response }),
    ],
  };
}

/** A Gemini answer of one part, whole or as one server-sent event. */
function geminiReply(req: SeenRequest, part: Json): UpstreamReply {
  const usageMetadata = { promptTokenCount: USAGE.input, candidatesTokenCount: USAGE.output, totalTokenCount: USAGE.input + USAGE.output };
  const last = { candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }], usageMetadata, modelVersion: "gemini-test" };
  return req.path.includes(":streamGenerateContent") ? { events: [{ data: last }] } : { json: last };
}

/** The tools a request offers, by API: a function inside a namespace (Codex's MCP servers) with its namespace. */
function offered(body: Json): Array<{ name: string; namespace?: string }> {
  const out: Array<{ name: string; namespace?: string }> = [];
  for (const t of (body.tools as Json[] | undefined) ?? []) {
    if (Array.isArray(t.functionDeclarations)) for (const f of t.functionDeclarations as Json[]) out.push({ name: String(f.name) });
    else if (t.type === "namespace") for (const inner of (t.tools as Json[] | undefined) ?? []) out.push({ name: String(inner.name), namespace: String(t.name) });
    else out.push({ name: String((t.function as Json | undefined)?.name ?? t.name ?? "") });
  }
  return out;
}

/** How many tool results the conversation holds (the step the agent is at), in any of the four APIs. */
function resultsIn(body: Json): number {
  const responses = ((body.input as Json[] | undefined) ?? []).filter((i) => i.type === "function_call_output").length;
  const text = JSON.stringify(body.messages ?? body.contents ?? []);
  return responses + (text.match(/"tool_result"|"role":"tool"|"functionResponse"/g) ?? []).length;
}

/** The names of the tools the agent offered in its model requests, each request's list once: what the model could call. */
export function offeredNames(seen: SeenRequest[]): string[][] {
  return seen.filter((s) => s.method === "POST").map((s) => offered((s.body ?? {}) as Json).map((t) => t.name)).filter((n) => n.length > 0);
}

/** The model each model request asked for (in the body, or in a Gemini path). */
export function modelsAsked(seen: SeenRequest[]): string[] {
  return seen
    .filter((s) => s.method === "POST")
    .map((s) => String(((s.body ?? {}) as Json).model ?? /\/models\/([^:/]+):/.exec(s.path)?.[1] ?? ""));
}

/** The text of every model request after the first: what the agent sent back of its tool calls' results. */
export function sentBack(seen: SeenRequest[]): string {
  return seen.slice(1).map((s) => JSON.stringify(s.body)).join("\n");
}

/**
 * A model endpoint that drives an agent through `script`: a request offering tools gets the step given by
 * the number of tool results so far (then a last word, "Done."); a request without tools (a title, a check
 * of the agent's own) gets a short text, or JSON when asked for it. It answers the Anthropic Messages API,
 * OpenAI chat completions, the Responses API and the Gemini API, streamed or whole, every answer with USAGE.
 */
export function scriptedUpstream(script: ScriptStep[]): Promise<FakeUpstream> {
  return fakeUpstream((req: SeenRequest): UpstreamReply => {
    if (req.method !== "POST") return { json: { object: "list", data: [], models: [] } };
    const body = (req.body ?? {}) as Json;
    const model = String(body.model ?? "m");
    const tools = offered(body);
    const done = resultsIn(body);
    const step = tools.length > 0 ? script[done] : undefined;
    const match = (n: string, tool: string): boolean => n.toLowerCase() === tool.toLowerCase() || n.endsWith(`__${tool}`) || n.endsWith(`_${tool}`);
    const tool = step ? (tools.find((t) => match(t.name, step.tool)) ?? { name: step.tool }) : null;
    const text = tools.length > 0 ? "Done." : "A title";
    if (req.path.includes(":generateContent") || req.path.includes(":streamGenerateContent")) {
      if (step && tool) return geminiReply(req, { functionCall: { name: tool.name, args: step.args } });
      const wantsJson = (body.generationConfig as Json | undefined)?.responseMimeType === "application/json";
      return geminiReply(req, { text: wantsJson ? JSON.stringify({ next_speaker: "user", reasoning: "The task is done." }) : text });
    }
    if (req.path.endsWith("/responses")) {
      if (step && tool) {
        return responseStream(model, { type: "function_call", id: `fc_${done}`, call_id: `call_${done}`, name: tool.name, ...(tool.namespace ? { namespace: tool.namespace } : {}), arguments: JSON.stringify(step.args), status: "completed" });
      }
      return responseStream(model, { type: "message", id: `msg_${done}`, role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
    }
    const name = tool?.name ?? null;
    if (req.path.includes("/messages")) {
      const blocks = step ? [{ type: "tool_use", id: `toolu_${done}`, name, input: step.args }] : [{ type: "text", text }];
      if (body.stream === true) return anthropicStream(model, blocks);
      return { json: { id: "msg_1", type: "message", role: "assistant", model, content: blocks, stop_reason: step ? "tool_use" : "end_turn", usage: { input_tokens: USAGE.input, output_tokens: USAGE.output } } };
    }
    const delta = step ? { tool_calls: [{ index: 0, id: `call_${done}`, type: "function", function: { name, arguments: JSON.stringify(step.args) } }] } : { content: text };
    if (body.stream === true) return chatStream(model, delta, step ? "tool_calls" : "stop");
    const message = step ? { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name, arguments: JSON.stringify(step.args) } }] } : { role: "assistant", content: text };
    return { json: { id: "c1", object: "chat.completion", created: 0, model, choices: [{ index: 0, message, finish_reason: step ? "tool_calls" : "stop" }], usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output } } };
  }, false);
}
