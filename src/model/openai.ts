import type OpenAI from "openai";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { abortedError, requestSignal, sleep, untilAborted } from "./abort.js";
import type { ModelClient, ModelReply, ModelRequest, ToolCall } from "./types.js";

type Sdk = typeof import("openai");

let sdk: Promise<Sdk> | null = null;

/** The openai package, loaded on the first request so that importing gitgood never loads it. */
function loadSdk(): Promise<Sdk> {
  sdk ??= import("openai");
  return sdk;
}

export interface OpenAIClientOptions {
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

const BACKOFF_START_MS = 500;
const BACKOFF_MAX_MS = 8000;
/** A server's Retry-After beyond this is not waited for; the usual back-off applies instead. */
const RETRY_AFTER_MAX_MS = 60_000;

/**
 * A chat-completions client for any OpenAI-compatible endpoint: hosted APIs and local servers such as
 * vLLM, llama.cpp or Ollama (`OPENAI_BASE_URL=http://localhost:11434/v1`). Retries are its own, so an
 * aborted request stops at once, also while it waits to retry.
 */
/** The whole prompt of `check()`'s request: an endpoint (or a test's fake one) can tell it from real work. */
export const CHECK_PROMPT = "Reply with OK.";

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
    try {
      const { api, client } = await this.api(signal);
      const body = { model: this.model, messages: [{ role: "user" as const, content: CHECK_PROMPT }] };
      toReply(this.model, await this.send(api, client, body, signal, Math.min(this.opts.maxRetries ?? 4, 1)));
    } catch (err) {
      const e = toGitGoodError(err, "MODEL_ERROR");
      throw new GitGoodError(e.code, `${e.message} (endpoint ${this.endpoint})`, e.data);
    }
  }

  /**
   * Sends a request, retrying what is worth retrying up to `maxRetries` times. The SDK retries nothing
   * itself (maxRetries 0), so an abort stops the request at once, also while it waits to retry.
   */
  private async send(
    api: Sdk,
    client: OpenAI,
    body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
    signal: AbortSignal | undefined,
    maxRetries: number,
  ): Promise<OpenAI.Chat.ChatCompletion> {
    for (let attempt = 0; ; attempt++) {
      const own = requestSignal(signal);
      try {
        return await untilAborted(client.chat.completions.create(body, own.signal ? { signal: own.signal } : {}), signal, this.model);
      } catch (err) {
        if (signal?.aborted) throw abortedError(this.model);
        if (err instanceof GitGoodError) throw err;
        const wait = attempt < maxRetries ? retryDelay(api, err, attempt) : null;
        if (wait === null) throw modelError(api, this.model, err);
        await sleep(wait, signal, this.model);
      } finally {
        own.release();
      }
    }
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
    usage: { prompt_tokens: res.usage?.prompt_tokens ?? 0, completion_tokens: res.usage?.completion_tokens ?? 0 },
    finish_reason: choice.finish_reason ?? null,
  };
}

/** How long to wait before retrying after `err`, or null when it is not worth retrying. */
function retryDelay(api: Sdk, err: unknown, attempt: number): number | null {
  const backoff = Math.min(BACKOFF_START_MS * 2 ** attempt, BACKOFF_MAX_MS) * (1 - Math.random() * 0.25);
  if (err instanceof api.APIConnectionError) return backoff;
  if (!(err instanceof api.APIError)) return null;
  const says = err.headers?.get("x-should-retry");
  const status = err.status ?? 0;
  const retry = says === "true" || (says !== "false" && (status === 408 || status === 409 || status === 429 || status >= 500));
  if (!retry) return null;
  const asked = retryAfterMs(err.headers);
  return asked !== null && asked >= 0 && asked <= RETRY_AFTER_MAX_MS ? asked : backoff;
}

/** The wait a server asks for: `retry-after-ms`, else `retry-after` in seconds or as an HTTP date. */
function retryAfterMs(headers: Headers | undefined): number | null {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (!Number.isNaN(ms)) return ms;
  const after = headers?.get("retry-after");
  if (!after) return null;
  const seconds = Number.parseFloat(after);
  if (!Number.isNaN(seconds)) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : date - Date.now();
}

function modelError(api: Sdk, model: string, err: unknown): GitGoodError {
  if (err instanceof api.APIConnectionTimeoutError) {
    return new GitGoodError("MODEL_TIMEOUT", `model ${model} did not answer in time (after retries)`);
  }
  if (err instanceof api.APIConnectionError) {
    return new GitGoodError("MODEL_UNREACHABLE", `cannot reach the model endpoint for ${model}: ${err.message}`);
  }
  if (err instanceof api.APIError) {
    const code =
      err.status === 401 || err.status === 403
        ? "MODEL_AUTH"
        : err.status === 404
          ? "MODEL_NOT_FOUND"
          : err.status === 429
            ? "MODEL_RATE_LIMITED"
            : "MODEL_ERROR";
    const first = (err.message || "").split("\n")[0] ?? "";
    return new GitGoodError(code, `model ${model}: ${first}`, { status: err.status ?? null });
  }
  return new GitGoodError("MODEL_ERROR", `model ${model}: ${err instanceof Error ? err.message : String(err)}`);
}
