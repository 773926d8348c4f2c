import type { ChatMessage, ToolCall } from "../model/types.js";
import type { ApiKind, Route, TurnReply, TurnUsage, UpstreamFamily } from "./types.js";
import { geminiMessages, geminiReplyOfJson, geminiReplyOfStream, geminiRoute, geminiTemperature } from "./gemini.js";

export type { ApiKind, Route, TurnReply, TurnUsage, UpstreamFamily } from "./types.js";

/** Every kind of model API the proxy records. */
export const API_KINDS: readonly ApiKind[] = ["openai-chat", "openai-responses", "anthropic-messages", "gemini-generate"];

/** The upstream a kind of request goes to. */
export function familyOf(kind: ApiKind): UpstreamFamily {
  return kind === "anthropic-messages" ? "anthropic" : kind === "gemini-generate" ? "gemini" : "openai";
}

/**
 * The request's path as it may go upstream, or null when it could lead anywhere but where it says: it must
 * start with `/`, and no segment may be empty (`//`), `.` or `..`, or decode (percent-encoding undone once)
 * to one of those or to anything holding `/`, `\`, `%` or a control character. One trailing slash is
 * dropped. What is left is passed on exactly as it came, so the upstream sees the path that was checked.
 */
export function cleanPath(pathname: string): string | null {
  if (!pathname.startsWith("/")) return null;
  const segments = pathname.slice(1).split("/");
  if (segments.length > 1 && segments.at(-1) === "") segments.pop();
  for (const raw of segments) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return null;
    }
    // eslint-disable-next-line no-control-regex
    if (decoded === "" || decoded === "." || decoded === ".." || /[/\\%\u0000-\u001f\u007f]/.test(decoded)) return null;
  }
  return `/${segments.join("/")}`;
}

/**
 * The route of a request as agents send it, from an allow-list of the routes each API has (anything else is
 * null, and the proxy does not serve it): OpenAI `POST /chat/completions`, `POST /responses`, `GET /models`
 * and `GET /models/ID`; Anthropic `POST /messages` and `POST /messages/count_tokens`; Gemini's model calls
 * and model list (./gemini.ts). OpenAI clients put `/v1` in their base URL and Anthropic clients add it
 * themselves, so both arrive as `/v1/...`; a path without `/v1` is taken the same way. The path given
 * upstream is relative to the upstream's base (an OpenAI base URL ends in `/v1`, an Anthropic one does not).
 * A path that fails cleanPath is null whatever it names.
 */
export function routeOf(method: string, url: string): Route | null {
  const q = url.indexOf("?");
  const pathname = cleanPath(q >= 0 ? url.slice(0, q) : url);
  if (pathname === null) return null;
  const query = q >= 0 ? url.slice(q) : "";
  const gemini = geminiRoute(method, pathname, query);
  if (gemini) return gemini;
  const rest = pathname.replace(/^\/v1(?=\/)/, "");
  if (method === "POST" && rest === "/chat/completions") return { record: true, kind: "openai-chat", path: `/chat/completions${query}` };
  if (method === "POST" && rest === "/responses") return { record: true, kind: "openai-responses", path: `/responses${query}` };
  if (method === "POST" && rest === "/messages") return { record: true, kind: "anthropic-messages", path: `/v1/messages${query}` };
  if (method === "POST" && rest === "/messages/count_tokens") return { record: false, family: "anthropic", path: `/v1/messages/count_tokens${query}` };
  if (method === "GET" && /^\/models(\/[^/]+)?$/.test(rest)) return { record: false, family: "openai", path: `${rest}${query}` };
  return null;
}


type Json = Record<string, unknown>;

function obj(v: unknown): Json | null {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : null;
}
function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0;
}
function str(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}
function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function openaiUsage(u: Json | null): TurnUsage | null {
  if (!u) return null;
  const cached = num(obj(u.prompt_tokens_details)?.cached_tokens ?? obj(u.input_tokens_details)?.cached_tokens);
  return { prompt: num(u.prompt_tokens ?? u.input_tokens), completion: num(u.completion_tokens ?? u.output_tokens), cacheRead: cached, cacheWrite: 0 };
}

function anthropicUsage(u: Json | null): TurnUsage | null {
  if (!u) return null;
  const read = num(u.cache_read_input_tokens);
  const write = num(u.cache_creation_input_tokens);
  return { prompt: num(u.input_tokens) + read + write, completion: num(u.output_tokens), cacheRead: read, cacheWrite: write };
}

function assistant(text: string, calls: ToolCall[]): Extract<ChatMessage, { role: "assistant" }> {
  return { role: "assistant", content: text === "" && calls.length > 0 ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}

function call(id: unknown, name: unknown, args: unknown): ToolCall {
  return { id: str(id) ?? "", type: "function", function: { name: str(name) ?? "", arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) } };
}

/** The reply of a whole (not streamed) JSON answer of `kind`. */
export function replyOfJson(kind: ApiKind, body: unknown): TurnReply {
  const b = obj(body) ?? {};
  if (kind === "openai-chat") {
    const choice = obj(arr(b.choices)[0]) ?? {};
    const m = obj(choice.message) ?? {};
    const calls = arr(m.tool_calls).map((c) => {
      const f = obj(obj(c)?.function) ?? {};
      return call(obj(c)?.id, f.name, f.arguments);
    });
    return { message: assistant(str(m.content) ?? "", calls), usage: openaiUsage(obj(b.usage)), stop: str(choice.finish_reason) };
  }
  if (kind === "openai-responses") return responsesReply(b);
  if (kind === "gemini-generate") return geminiReplyOfJson(body);
  const text: string[] = [];
  const calls: ToolCall[] = [];
  for (const block of arr(b.content).map(obj)) {
    if (block?.type === "text") text.push(str(block.text) ?? "");
    else if (block?.type === "tool_use") calls.push(call(block.id, block.name, block.input));
  }
  return { message: assistant(text.join(""), calls), usage: anthropicUsage(obj(b.usage)), stop: str(b.stop_reason) };
}

function responsesReply(b: Json): TurnReply {
  const text: string[] = [];
  const calls: ToolCall[] = [];
  for (const item of arr(b.output).map(obj)) {
    if (item?.type === "message") {
      for (const part of arr(item.content).map(obj)) if (part?.type === "output_text") text.push(str(part.text) ?? "");
    } else if (item?.type === "function_call") {
      calls.push(call(item.call_id ?? item.id, item.name, item.arguments));
    }
  }
  return { message: assistant(text.join(""), calls), usage: openaiUsage(obj(b.usage)), stop: str(b.status) };
}

/** The JSON payloads of a server-sent-events stream, in order (`data: [DONE]` and non-JSON lines left out). */
export function sseData(text: string): unknown[] {
  const out: unknown[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).replace(/^ /, ""))
      .join("\n");
    if (data === "" || data === "[DONE]") continue;
    try {
      out.push(JSON.parse(data));
    } catch {
      // not JSON: nothing to count
    }
  }
  return out;
}

/** The reply of a streamed answer of `kind`, put together from its events. */
export function replyOfStream(kind: ApiKind, raw: string): TurnReply {
  if (kind === "gemini-generate") return geminiReplyOfStream(raw, sseData);
  const events = sseData(raw).map(obj).filter((e): e is Json => e !== null);
  if (kind === "openai-chat") {
    let content = "";
    let stop: string | null = null;
    let usage: TurnUsage | null = null;
    const calls: Array<{ id: string; name: string; args: string }> = [];
    for (const e of events) {
      if (obj(e.usage)) usage = openaiUsage(obj(e.usage));
      for (const choice of arr(e.choices).map(obj)) {
        if (!choice) continue;
        stop = str(choice.finish_reason) ?? stop;
        const delta = obj(choice.delta) ?? {};
        content += str(delta.content) ?? "";
        for (const tc of arr(delta.tool_calls).map(obj)) {
          if (!tc) continue;
          const i = typeof tc.index === "number" ? tc.index : calls.length;
          const slot = (calls[i] ??= { id: "", name: "", args: "" });
          const f = obj(tc.function) ?? {};
          slot.id ||= str(tc.id) ?? "";
          slot.name += str(f.name) ?? "";
          slot.args += str(f.arguments) ?? "";
        }
      }
    }
    const toolCalls = calls.filter(Boolean).map((c) => call(c.id, c.name, c.args));
    return { message: assistant(content, toolCalls), usage, stop };
  }
  if (kind === "openai-responses") {
    const done = events.find((e) => e.type === "response.completed" || e.type === "response.incomplete" || e.type === "response.failed");
    if (done && obj(done.response)) return responsesReply(obj(done.response) as Json);
    const text = events.filter((e) => e.type === "response.output_text.delta").map((e) => str(e.delta) ?? "");
    return { message: assistant(text.join(""), []), usage: null, stop: null };
  }
  let usage: TurnUsage | null = null;
  let stop: string | null = null;
  const blocks: Array<{ type: string; text: string; id: unknown; name: unknown; json: string }> = [];
  for (const e of events) {
    if (e.type === "message_start") usage = anthropicUsage(obj(obj(e.message)?.usage));
    else if (e.type === "content_block_start") {
      const b = obj(e.content_block) ?? {};
      const i = typeof e.index === "number" ? e.index : blocks.length;
      blocks[i] = { type: str(b.type) ?? "", text: str(b.text) ?? "", id: b.id, name: b.name, json: "" };
    } else if (e.type === "content_block_delta") {
      const d = obj(e.delta) ?? {};
      const slot = blocks[typeof e.index === "number" ? e.index : blocks.length - 1];
      if (!slot) continue;
      if (d.type === "text_delta") slot.text += str(d.text) ?? "";
      else if (d.type === "input_json_delta") slot.json += str(d.partial_json) ?? "";
    } else if (e.type === "message_delta") {
      stop = str(obj(e.delta)?.stop_reason) ?? stop;
      const u = obj(e.usage);
      // message_delta carries the final output count (cumulative); input counts may be repeated there.
      if (u) {
        const later = anthropicUsage(u) as TurnUsage;
        if (!usage || num(u.input_tokens) > 0) usage = later;
        else usage = { prompt: usage.prompt, cacheRead: usage.cacheRead, cacheWrite: usage.cacheWrite, completion: later.completion };
      }
    }
  }
  const text = blocks.filter((b) => b?.type === "text").map((b) => b.text);
  const calls = blocks.filter((b) => b?.type === "tool_use").map((b) => call(b.id, b.name, b.json === "" ? "{}" : b.json));
  return { message: assistant(text.join(""), calls), usage, stop };
}

/** The model a request names, and whether it asks for a stream: from its body, or from its path where the route says (Gemini). */
export function requestFacts(body: Json, route?: Route): { model: string; stream: boolean; temperature: number | null } {
  const byPath = route?.record === true ? route : null;
  if (byPath?.kind === "gemini-generate") return { model: byPath.model ?? "", stream: byPath.stream === true, temperature: geminiTemperature(body) };
  return { model: str(body.model) ?? "", stream: body.stream === true, temperature: typeof body.temperature === "number" ? body.temperature : null };
}

/** The conversation a request sends, as recorded: the messages (chat, Anthropic, with the system prompt) or the Responses API's input. */
export function requestMessages(kind: ApiKind, body: Json): unknown[] {
  if (kind === "gemini-generate") return geminiMessages(body);
  if (kind === "openai-responses") {
    const input = body.input;
    const head = typeof body.instructions === "string" ? [{ role: "system", content: body.instructions }] : [];
    return [...head, ...(typeof input === "string" ? [{ role: "user", content: input }] : arr(input))];
  }
  const head = kind === "anthropic-messages" && body.system !== undefined ? [{ role: "system", content: body.system }] : [];
  return [...head, ...arr(body.messages)];
}
