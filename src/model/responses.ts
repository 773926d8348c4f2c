import type OpenAI from "openai";
import { GitGoodError } from "../errors.js";
import { untilAborted } from "./abort.js";
import type { OpenAIClientOptions } from "./openai.js";
import { endpointOf } from "./options.js";
import { CHECK_PROMPT, checkEndpoint, withRetries } from "./retry.js";
import { promptCacheUsage, type ChatMessage, type ModelClient, type ModelReply, type ModelRequest, type ToolCall } from "./types.js";

type Sdk = typeof import("openai");
/** A Responses request as sent (streamed: the client asks for the answer as events). */
type Body = Omit<OpenAI.Responses.ResponseCreateParams, "stream">;

let sdk: Promise<Sdk> | null = null;

/** The openai package, loaded on the first request so that importing gitgood never loads it. */
function loadSdk(): Promise<Sdk> {
  sdk ??= import("openai");
  return sdk;
}

/**
 * A client of the OpenAI Responses API (`POST {base}/responses`), with the same endpoint and key settings
 * as the chat-completions client (OPENAI_BASE_URL, OPENAI_API_KEY). Each request sends the whole
 * conversation (nothing is stored on the server: `store: false`): system messages as the instructions,
 * tool calls and results as `function_call` and `function_call_output` items. Answers are streamed, so a
 * long one never waits idle on one response. Retries are gitgood's own.
 */
export class OpenAIResponsesClient implements ModelClient {
  /** The name as a user gives it, `openai-responses/MODEL` (records, prices and messages use it; the API is sent MODEL). */
  readonly model: string;
  readonly endpoint: string;
  private readonly apiKey: string;
  private client: OpenAI | null = null;

  constructor(private readonly opts: Omit<OpenAIClientOptions, "temperature">) {
    this.model = `openai-responses/${opts.model}`;
    this.endpoint = endpointOf(opts.baseURL);
    this.apiKey = opts.apiKey ?? process.env.OPENAI_API_KEY ?? "not-needed";
  }

  private async api(signal: AbortSignal | undefined): Promise<{ api: Sdk; client: OpenAI }> {
    const api = await untilAborted(loadSdk(), signal, this.model);
    this.client ??= new api.OpenAI({ baseURL: this.endpoint, apiKey: this.apiKey, maxRetries: 0, timeout: this.opts.timeoutMs ?? 120_000 });
    return { api, client: this.client };
  }

  async complete(request: ModelRequest): Promise<ModelReply> {
    const { api, client } = await this.api(request.signal);
    return toReply(this.model, await this.send(api, client, responsesBody(this.opts.model, request), request.signal, this.opts.maxRetries ?? 4));
  }

  /** One small request (CHECK_PROMPT, retried once at most): the endpoint answers, takes the key and serves the model. */
  async check(signal?: AbortSignal): Promise<void> {
    await checkEndpoint(`${this.endpoint}/responses`, async () => {
      const { api, client } = await this.api(signal);
      const body = responsesBody(this.opts.model, { messages: [{ role: "user", content: CHECK_PROMPT }] });
      toReply(this.model, await this.send(api, client, body, signal, Math.min(this.opts.maxRetries ?? 4, 1)));
    });
  }

  private send(api: Sdk, client: OpenAI, body: Body, signal: AbortSignal | undefined, maxRetries: number): Promise<OpenAI.Responses.Response> {
    // Streamed (see AnthropicClient): the final response is the one the `response.completed` event carries, with its usage.
    return withRetries(api, this.model, (own) => client.responses.stream(body, own ? { signal: own } : {}).finalResponse(), signal, maxRetries);
  }
}

/** The Responses request of a gitgood request. */
function responsesBody(model: string, request: ModelRequest): Body {
  const instructions = request.messages.flatMap((m) => (m.role === "system" ? [m.content] : []));
  const tools = (request.tools ?? []).map(
    (t): OpenAI.Responses.FunctionTool => ({ type: "function", name: t.function.name, description: t.function.description, parameters: t.function.parameters, strict: false }),
  );
  return {
    model,
    input: request.messages.flatMap(toItems),
    store: false,
    ...(instructions.length > 0 ? { instructions: instructions.join("\n\n") } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.max_tokens !== undefined ? { max_output_tokens: request.max_tokens } : {}),
    ...(request.json ? { text: { format: { type: "json_object" as const } } } : {}),
  };
}

/** One message of the conversation as Responses input items (system messages go into the instructions). */
function toItems(m: ChatMessage): OpenAI.Responses.ResponseInputItem[] {
  if (m.role === "system") return [];
  if (m.role === "user") return [{ role: "user", content: m.content }];
  if (m.role === "tool") return [{ type: "function_call_output", call_id: m.tool_call_id, output: m.content }];
  return [
    ...(m.content ? [{ role: "assistant" as const, content: m.content }] : []),
    ...(m.tool_calls ?? []).map((c) => ({ type: "function_call" as const, call_id: c.id, name: c.function.name, arguments: c.function.arguments })),
  ];
}

function toReply(model: string, res: OpenAI.Responses.Response): ModelReply {
  if (!Array.isArray(res.output)) throw new GitGoodError("MODEL_ERROR", `model ${model} returned no output`);
  if (res.status === "failed") {
    throw new GitGoodError("MODEL_ERROR", `model ${model}: the response failed (${res.error?.message ?? "no reason given"})`);
  }
  const text = res.output
    .flatMap((item) => (item.type === "message" ? item.content : []))
    .flatMap((part) => (part.type === "output_text" ? [part.text] : []))
    .join("");
  const calls = res.output.flatMap((item): ToolCall[] =>
    item.type === "function_call" ? [{ id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } }] : [],
  );
  const u = res.usage;
  return {
    message: { role: "assistant", content: text === "" && calls.length > 0 ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
    usage: promptCacheUsage(u?.input_tokens ?? 0, u?.output_tokens ?? 0, u?.input_tokens_details?.cached_tokens ?? 0, u?.input_tokens_details?.cache_write_tokens ?? 0),
    finish_reason: calls.length > 0 ? "tool_calls" : res.status === "incomplete" ? "length" : "stop",
  };
}
