import type { ToolCall } from "../model/types.js";
import type { Route, TurnReply, TurnUsage } from "./types.js";

/**
 * The Gemini API (`generateContent` and `streamGenerateContent`, as Google's SDKs and gemini-cli send them),
 * passed through to a Gemini endpoint. The model is in the path, not the body; a stream is asked by the
 * method, as server-sent events with `?alt=sse` or else as one JSON array of chunks. The key comes in
 * `x-goog-api-key` or as `?key=`, which never goes upstream (the proxy puts the user's key in the header).
 */

type Json = Record<string, unknown>;

function obj(v: unknown): Json | null {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : null;
}
function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0;
}

const MODEL_CALL = /^\/(v1|v1beta|v1alpha)\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;
/** Gemini's model list; `/v1/models` is left to OpenAI's. */
const MODELS = /^\/(v1beta|v1alpha)\/models(\/[^/:]+)?$/;

/** The query without its `key` parameter (the agent's key), `?`-prefixed, or empty. */
function withoutKey(query: string): string {
  const params = new URLSearchParams(query);
  params.delete("key");
  const rest = params.toString();
  return rest === "" ? "" : `?${rest}`;
}

/** The key a request carries in its query (`?key=`), if any. */
export function geminiQueryKey(url: string): string | null {
  const q = url.indexOf("?");
  return q >= 0 ? new URLSearchParams(url.slice(q + 1)).get("key") : null;
}

/** The route of a Gemini API path (the version kept: the upstream's base URL has none), or null when it is not one. */
export function geminiRoute(method: string, pathname: string, query: string): Route | null {
  const call = MODEL_CALL.exec(pathname);
  const path = `${pathname}${withoutKey(query.replace(/^\?/, ""))}`;
  if (method === "POST" && call) {
    const [, , model, verb] = call;
    if (verb === "countTokens") return { record: false, family: "gemini", path };
    return { record: true, kind: "gemini-generate", path, model: decodeURIComponent(model ?? ""), stream: verb === "streamGenerateContent" };
  }
  if (method === "GET" && MODELS.test(pathname)) return { record: false, family: "gemini", path };
  return null;
}

/** Tokens from `usageMetadata`: the prompt counts its cached part; the answer counts its thinking, billed as output. */
function usageOf(u: Json | null): TurnUsage | null {
  if (!u) return null;
  return { prompt: num(u.promptTokenCount), completion: num(u.candidatesTokenCount) + num(u.thoughtsTokenCount), cacheRead: num(u.cachedContentTokenCount), cacheWrite: 0 };
}

/** The reply put together from answer chunks in order (one for a whole answer): text and function calls of the first candidate, the last usage given. */
function replyOfChunks(chunks: unknown[]): TurnReply {
  let text = "";
  const calls: ToolCall[] = [];
  let usage: TurnUsage | null = null;
  let stop: string | null = null;
  for (const chunk of chunks.map(obj)) {
    if (!chunk) continue;
    usage = usageOf(obj(chunk.usageMetadata)) ?? usage;
    const candidate = obj(arr(chunk.candidates)[0]);
    if (!candidate) continue;
    if (typeof candidate.finishReason === "string") stop = candidate.finishReason;
    for (const part of arr(obj(candidate.content)?.parts).map(obj)) {
      if (!part || part.thought === true) continue;
      if (typeof part.text === "string") text += part.text;
      const fc = obj(part.functionCall);
      if (fc) {
        const id = typeof fc.id === "string" ? fc.id : `call_${calls.length}`;
        calls.push({ id, type: "function", function: { name: typeof fc.name === "string" ? fc.name : "", arguments: JSON.stringify(fc.args ?? {}) } });
      }
    }
  }
  const message = { role: "assistant" as const, content: text === "" && calls.length > 0 ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
  return { message, usage, stop };
}

/** The reply of a whole answer (an object; a stream asked without `alt=sse` is a JSON array of chunks). */
export function geminiReplyOfJson(body: unknown): TurnReply {
  return replyOfChunks(Array.isArray(body) ? body : [body]);
}

/** The reply of a streamed answer: server-sent events, each a chunk, or one JSON array of them. */
export function geminiReplyOfStream(raw: string, sseData: (text: string) => unknown[]): TurnReply {
  if (raw.trimStart().startsWith("[")) {
    try {
      return replyOfChunks(JSON.parse(raw) as unknown[]);
    } catch {
      // a cut-off array: nothing to count
      return replyOfChunks([]);
    }
  }
  return replyOfChunks(sseData(raw));
}

/** The conversation a request sends: the system instruction, then its contents. */
export function geminiMessages(body: Json): unknown[] {
  const system = body.systemInstruction ?? body.system_instruction;
  return [...(system !== undefined ? [{ role: "system", content: system }] : []), ...arr(body.contents)];
}

/** The sampling temperature a request asks for, in its generation config. */
export function geminiTemperature(body: Json): number | null {
  const t = obj(body.generationConfig ?? body.generation_config)?.temperature;
  return typeof t === "number" ? t : null;
}
