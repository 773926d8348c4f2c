import type OpenAI from "openai";
import { GitGoodError } from "../errors.js";
import { untilAborted } from "./abort.js";
import { CHECK_PROMPT, checkEndpoint, withRetries } from "./retry.js";
import { promptCacheUsage, type ModelClient, type ModelReply, type ModelRequest, type ToolCall } from "./types.js";

export { CHECK_PROMPT } from "./retry.js";

type Sdk = typeof import("openai");

let sdk: Promise<Sdk> | null = null;

/** The openai package, loaded on the first request so that importing gitgood never loads it. */
function loadSdk(): Promise<Sdk> {
  sdk ??= import("openai");
  return sdk;
}

/** How an `OpenAIChatClient` reaches its endpoint and what it asks for. */
export interface OpenAIClientOptions {
  /** The model name sent with every request, as the endpoint knows it. */
  model: string;
  /** Default: OPENAI_BASE_URL, else the hosted OpenAI API. */
  baseURL?: string;
  /** Default: OPENAI_API_KEY; local servers accept any value. */
  apiKey?: string;
  /** The temperature of requests that name none (default: the endpoint's). */
  temperature?: number;
  /** Retries on 408/409/429/5xx, lost connections and timeouts, with exponential back-off (honours Retry-After). Default 4. */
  maxRetries?: number;
  /** Time limit of each attempt, ms. Default 120,000. */
  timeoutMs?: number;
}

/**
 * A chat-completions client for any OpenAI-compatible endpoint: hosted APIs and local servers such as
 * vLLM, llama.cpp or Ollama (`OPENAI_BASE_URL=http://localhost:11434/v1`). Retries are its own, so an
 * aborted request stops at once, also while it waits to retry.
 */
export class OpenAIChatClient implements ModelClient {
  readonly model: string;
  private readonly baseURL: string | undefined;
  private readonly apiKey: string;
  private client: OpenAI | null = null;

  constructor(private readonly opts: OpenAIClientOptions) {
    this.model = opts.model;
    this.baseURL = opts.baseURL ?? process.env.OPENAI_BASE_URL ?? undefined;
    this.apiKey = opts.apiKey ?? process.env.OPENAI_API_KEY ?? "not-needed";
  }

  /** The endpoint requests go to (for messages: never the key). */
  get endpoint(): string {
    return this.baseURL ?? "https://api.openai.com/v1";
  }

  private async api(signal: AbortSignal | undefined): Promise<{ api: Sdk; client: OpenAI }> {
    const api = await untilAborted(loadSdk(), signal, this.model);
    this.client ??= new api.OpenAI({ baseURL: this.baseURL, apiKey: this.apiKey, maxRetries: 0, timeout: this.opts.timeoutMs ?? 120_000 });
    return { api, client: this.client };
  }

  /**
   * Sends one chat-completions request, retrying as `maxRetries` allows. Rejects with `ABORTED` when the request's
   * signal fires, else with a `MODEL_…` code (`MODEL_AUTH` for 401/403, `MODEL_RATE_LIMITED`, `MODEL_TIMEOUT`…).
   */
  async complete(request: ModelRequest): Promise<ModelReply> {
    const { signal } = request;
    const { api, client } = await this.api(signal);
    const temperature = request.temperature ?? this.opts.temperature;
    const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
      model: this.model,
      messages: request.messages as OpenAI.Chat.ChatCompletionMessageParam[],
      ...(request.tools && request.tools.length > 0 ? { tools: request.tools as OpenAI.Chat.ChatCompletionTool[] } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(request.max_tokens !== undefined ? { max_tokens: request.max_tokens } : {}),
      ...(request.seed !== undefined ? { seed: request.seed } : {}),
      ...(request.json ? { response_format: { type: "json_object" as const } } : {}),
    };
    return toReply(this.model, await this.send(api, client, body, signal, this.opts.maxRetries ?? 4));
  }

  /**
   * One small request (CHECK_PROMPT, retried once at most) that checks what every request needs: the
   * endpoint answers, takes the key and serves the model. Throws the request's error, naming the endpoint.
   */
  async check(signal?: AbortSignal): Promise<void> {
    await checkEndpoint(this.endpoint, async () => {
      const { api, client } = await this.api(signal);
      const body = { model: this.model, messages: [{ role: "user" as const, content: CHECK_PROMPT }] };
      toReply(this.model, await this.send(api, client, body, signal, Math.min(this.opts.maxRetries ?? 4, 1)));
    });
  }

  /** Sends a request with gitgood's retries (the SDK retries nothing itself: maxRetries 0). */
  private send(
    api: Sdk,
    client: OpenAI,
    body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
    signal: AbortSignal | undefined,
    maxRetries: number,
  ): Promise<OpenAI.Chat.ChatCompletion> {
    return withRetries(api, this.model, (own) => client.chat.completions.create(body, own ? { signal: own } : {}), signal, maxRetries);
  }
}

function toReply(model: string, res: OpenAI.Chat.ChatCompletion): ModelReply {
  const choice = res.choices[0];
  if (!choice) throw new GitGoodError("MODEL_ERROR", `model ${model} returned no choices`);
  const calls = (choice.message.tool_calls ?? []).flatMap((c): ToolCall[] =>
    c.type === "function" ? [{ id: c.id, type: "function", function: { name: c.function.name, arguments: c.function.arguments } }] : [],
  );
  return {
    message: { role: "assistant", content: choice.message.content ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
    usage: promptCacheUsage(res.usage?.prompt_tokens ?? 0, res.usage?.completion_tokens ?? 0, res.usage?.prompt_tokens_details?.cached_tokens ?? 0, 0),
    finish_reason: choice.finish_reason ?? null,
  };
}
