import type Anthropic from "@anthropic-ai/sdk";
import { GitGoodError } from "../errors.js";
import { untilAborted } from "./abort.js";
import { CHECK_PROMPT, checkEndpoint, withRetries } from "./retry.js";
import { promptCacheUsage, type ChatMessage, type ModelClient, type ModelReply, type ModelRequest, type ToolCall, type ToolSpec } from "./types.js";

type Sdk = typeof import("@anthropic-ai/sdk");

let sdk: Promise<Sdk> | null = null;

/** The Anthropic package, loaded on the first request so that importing gitgood never loads it. */
function loadSdk(): Promise<Sdk> {
  sdk ??= import("@anthropic-ai/sdk");
  return sdk;
}

/** The hosted Anthropic API, where requests go when neither the options nor ANTHROPIC_BASE_URL name a base URL. */
export const ANTHROPIC_API = "https://api.anthropic.com";

/** The answer's token cap when the request gives none (the Messages API needs one). */
const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

/** What a JSON-mode request adds to the system prompt: the Messages API has no JSON response format. */
const JSON_INSTRUCTION = "Answer with one JSON object and nothing else.";

export interface AnthropicClientOptions {
  model: string;
  /** Default: ANTHROPIC_BASE_URL, else the hosted Anthropic API. */
  baseURL?: string;
  /** Default: ANTHROPIC_API_KEY. */
  apiKey?: string;
  /** Retries on 408/409/429/5xx (529 overloaded included), lost connections and timeouts. Default 4. */
  maxRetries?: number;
  /** Time limit of each attempt, ms. Default 120,000. */
  timeoutMs?: number;
}

/** The base URL of an Anthropic client's options, as requests use it and the response cache keys it. */
export function anthropicBaseURL(baseURL?: string): string {
  return baseURL || process.env.ANTHROPIC_BASE_URL || ANTHROPIC_API;
}

/**
 * A client of the Anthropic Messages API. gitgood's conversation (OpenAI-style messages and function tools)
 * is sent as Messages: system messages as the system prompt, tool calls as `tool_use` blocks and tool results
 * as `tool_result` blocks of a user turn. The system prompt, the tools and the conversation so far are marked
 * for the prompt cache, so an agent's growing conversation is read from the cache turn after turn; the usage
 * counts every prompt token, and says how many were read from or written to the cache. Answers are streamed
 * and put together by the SDK, so a long answer never waits idle on one response. Retries are gitgood's own
 * (the SDK retries nothing), so an aborted request stops at once.
 */
export class AnthropicClient implements ModelClient {
  /** The name as a user gives it, `anthropic/MODEL` (records, prices and messages use it; the API is sent MODEL). */
  readonly model: string;
  readonly endpoint: string;
  private readonly apiKey: string | undefined;
  private client: Anthropic | null = null;

  constructor(private readonly opts: AnthropicClientOptions) {
    this.model = `anthropic/${opts.model}`;
    this.endpoint = anthropicBaseURL(opts.baseURL);
    this.apiKey = opts.apiKey ?? process.env.ANTHROPIC_API_KEY;
  }

  private async api(signal: AbortSignal | undefined): Promise<{ api: Sdk; client: Anthropic }> {
    const api = await untilAborted(loadSdk(), signal, this.model);
    if (!this.apiKey) throw new GitGoodError("MODEL_AUTH", `model ${this.model}: no API key (set ANTHROPIC_API_KEY)`);
    this.client ??= new api.Anthropic({ baseURL: this.endpoint, apiKey: this.apiKey, maxRetries: 0, timeout: this.opts.timeoutMs ?? 120_000 });
    return { api, client: this.client };
  }

  async complete(request: ModelRequest): Promise<ModelReply> {
    const { api, client } = await this.api(request.signal);
    return toReply(this.model, await this.send(api, client, messagesBody(this.opts.model, request), request.signal, this.opts.maxRetries ?? 4));
  }

  /** One small request (CHECK_PROMPT, retried once at most): the endpoint answers, takes the key and serves the model. */
  async check(signal?: AbortSignal): Promise<void> {
    await checkEndpoint(this.endpoint, async () => {
      const { api, client } = await this.api(signal);
      const body = { model: this.opts.model, max_tokens: 16, messages: [{ role: "user" as const, content: CHECK_PROMPT }] };
      toReply(this.model, await this.send(api, client, body, signal, Math.min(this.opts.maxRetries ?? 4, 1)));
    });
  }

  private send(
    api: Sdk,
    client: Anthropic,
    body: Anthropic.MessageCreateParamsNonStreaming,
    signal: AbortSignal | undefined,
    maxRetries: number,
  ): Promise<Anthropic.Message> {
    // Streamed, so a long answer keeps the connection busy (no idle time-out before its end); the final
    // message holds the whole answer and the usage as the last event gives it.
    return withRetries(api, this.model, (own) => client.messages.stream(body, own ? { signal: own } : {}).finalMessage(), signal, maxRetries);
  }
}

const CACHED = { cache_control: { type: "ephemeral" as const } };

/** The Messages request of a gitgood request. */
function messagesBody(model: string, request: ModelRequest): Anthropic.MessageCreateParamsNonStreaming {
  const system = request.messages.flatMap((m) => (m.role === "system" ? [m.content] : []));
  if (request.json) system.push(JSON_INSTRUCTION);
  const messages = toMessages(request.messages);
  markLastBlock(messages);
  const tools = (request.tools ?? []).map(toTool);
  const lastTool = tools.at(-1);
  if (lastTool) Object.assign(lastTool, CACHED);
  return {
    model,
    max_tokens: request.max_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages,
    ...(system.length > 0 ? { system: [{ type: "text" as const, text: system.join("\n\n"), ...CACHED }] } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(request.temperature !== undefined ? { temperature: Math.min(request.temperature, 1) } : {}),
  };
}

function toTool(spec: ToolSpec): Anthropic.Tool {
  return {
    name: spec.function.name,
    description: spec.function.description,
    input_schema: { type: "object", ...spec.function.parameters },
  };
}

/** A tool call's arguments as the `input` object of a tool_use block (arguments that are no JSON object are kept as `{ arguments }`). */
function toolInput(args: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // kept whole below
  }
  return { arguments: args };
}

/** The conversation as Messages: user and assistant turns alternating, tool results in the user turn after the calls. */
function toMessages(history: readonly ChatMessage[]): Anthropic.MessageParam[] {
  const out: { role: "user" | "assistant"; content: Anthropic.ContentBlockParam[] }[] = [];
  const push = (role: "user" | "assistant", blocks: Anthropic.ContentBlockParam[]): void => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of history) {
    if (m.role === "user") push("user", [{ type: "text", text: m.content }]);
    else if (m.role === "tool") push("user", [{ type: "tool_result", tool_use_id: m.tool_call_id, content: m.content }]);
    else if (m.role === "assistant") {
      const blocks: Anthropic.ContentBlockParam[] = m.content ? [{ type: "text", text: m.content }] : [];
      for (const call of m.tool_calls ?? []) blocks.push({ type: "tool_use", id: call.id, name: call.function.name, input: toolInput(call.function.arguments) });
      push("assistant", blocks);
    }
  }
  return out;
}

/** Marks the conversation's last block for the prompt cache: the next turn reads everything before it from the cache. */
function markLastBlock(messages: Anthropic.MessageParam[]): void {
  const content = messages.at(-1)?.content;
  const block = Array.isArray(content) ? content.at(-1) : undefined;
  if (block && block.type !== "thinking" && block.type !== "redacted_thinking") Object.assign(block, CACHED);
}

/** What a stop reason is called in gitgood's (OpenAI-style) replies. */
function finishReason(reason: Anthropic.StopReason | null): string | null {
  if (reason === "tool_use") return "tool_calls";
  if (reason === "end_turn" || reason === "stop_sequence") return "stop";
  if (reason === "max_tokens") return "length";
  return reason;
}

function toReply(model: string, res: Anthropic.Message): ModelReply {
  if (!Array.isArray(res.content)) throw new GitGoodError("MODEL_ERROR", `model ${model} returned no content`);
  const text = res.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  const calls = res.content.flatMap((b): ToolCall[] =>
    b.type === "tool_use" ? [{ id: b.id, type: "function", function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }] : [],
  );
  const u = res.usage;
  const read = u?.cache_read_input_tokens ?? 0;
  const written = u?.cache_creation_input_tokens ?? 0;
  return {
    message: { role: "assistant", content: text === "" && calls.length > 0 ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
    usage: promptCacheUsage((u?.input_tokens ?? 0) + read + written, u?.output_tokens ?? 0, read, written),
    finish_reason: finishReason(res.stop_reason),
  };
}
