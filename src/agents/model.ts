import OpenAI from "openai";
import { GitGoodError } from "../errors.js";

/** One function the model may call, in the OpenAI-compatible function-calling shape. */
export interface ToolSpec {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface ModelRequest {
  messages: readonly ChatMessage[];
  tools?: readonly ToolSpec[];
  temperature?: number;
  /** Ask for a JSON object answer (models that support it). */
  json?: boolean;
}

export interface ModelReply {
  message: Extract<ChatMessage, { role: "assistant" }>;
  usage: Usage;
  finish_reason: string | null;
}

/** The one thing an agent or a judge needs of a model. Tests use a scripted implementation. */
export interface ModelClient {
  readonly model: string;
  complete(request: ModelRequest): Promise<ModelReply>;
}

export interface OpenAIClientOptions {
  model: string;
  /** Default: OPENAI_BASE_URL, else the hosted OpenAI API. */
  baseURL?: string;
  /** Default: OPENAI_API_KEY; local servers accept any value. */
  apiKey?: string;
  /** Retries on 408/409/429/5xx and timeouts, with exponential backoff (honours Retry-After). */
  maxRetries?: number;
  /** Per-request time limit, ms. */
  timeoutMs?: number;
}

/**
 * A chat-completions client for any OpenAI-compatible endpoint: hosted APIs and local servers such as
 * vLLM, llama.cpp or Ollama (`OPENAI_BASE_URL=http://localhost:11434/v1`).
 */
export class OpenAIChatClient implements ModelClient {
  readonly model: string;
  private readonly client: OpenAI;

  constructor(opts: OpenAIClientOptions) {
    this.model = opts.model;
    this.client = new OpenAI({
      baseURL: opts.baseURL ?? process.env.OPENAI_BASE_URL ?? undefined,
      apiKey: opts.apiKey ?? process.env.OPENAI_API_KEY ?? "not-needed",
      maxRetries: opts.maxRetries ?? 4,
      timeout: opts.timeoutMs ?? 120_000,
    });
  }

  async complete(request: ModelRequest): Promise<ModelReply> {
    try {
      const res = await this.client.chat.completions.create({
        model: this.model,
        messages: request.messages as OpenAI.Chat.ChatCompletionMessageParam[],
        ...(request.tools && request.tools.length > 0
          ? { tools: request.tools as OpenAI.Chat.ChatCompletionTool[] }
          : {}),
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.json ? { response_format: { type: "json_object" as const } } : {}),
      });
      const choice = res.choices[0];
      if (!choice) throw new GitGoodError("MODEL_ERROR", `model ${this.model} returned no choices`);
      const calls = (choice.message.tool_calls ?? []).flatMap((c): ToolCall[] =>
        c.type === "function"
          ? [{ id: c.id, type: "function", function: { name: c.function.name, arguments: c.function.arguments } }]
          : [],
      );
      return {
        message: {
          role: "assistant",
          content: choice.message.content ?? null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        usage: {
          prompt_tokens: res.usage?.prompt_tokens ?? 0,
          completion_tokens: res.usage?.completion_tokens ?? 0,
        },
        finish_reason: choice.finish_reason ?? null,
      };
    } catch (err) {
      throw modelError(this.model, err);
    }
  }
}

function modelError(model: string, err: unknown): GitGoodError {
  if (err instanceof GitGoodError) return err;
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return new GitGoodError("MODEL_TIMEOUT", `model ${model} did not answer in time (after retries)`);
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return new GitGoodError("MODEL_UNREACHABLE", `cannot reach the model endpoint for ${model}: ${err.message}`);
  }
  if (err instanceof OpenAI.APIError) {
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

/** A reply a script can give: plain text, tool calls, or a function of the conversation so far. */
export type ScriptStep =
  | string
  | { content?: string | null; tool_calls?: { name: string; arguments: unknown }[]; usage?: Partial<Usage> }
  | ((request: ModelRequest) => ScriptStep);

/**
 * A model that answers from a script, for tests and dry runs. Every request is recorded. Running past
 * the end of the script is an error.
 */
export class ScriptedModelClient implements ModelClient {
  readonly requests: ModelRequest[] = [];
  private step = 0;

  constructor(
    private readonly script: readonly ScriptStep[],
    readonly model = "scripted",
  ) {}

  async complete(request: ModelRequest): Promise<ModelReply> {
    this.requests.push({ ...request, messages: [...request.messages] });
    let next = this.script[this.step++];
    if (next === undefined) throw new GitGoodError("MODEL_ERROR", `scripted model has no reply #${this.step}`);
    while (typeof next === "function") next = next(request);
    const reply = typeof next === "string" ? { content: next } : next;
    const calls: ToolCall[] = (reply.tool_calls ?? []).map((c, i) => ({
      id: `call_${this.step}_${i}`,
      type: "function",
      function: { name: c.name, arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments) },
    }));
    return {
      message: { role: "assistant", content: reply.content ?? null, ...(calls.length ? { tool_calls: calls } : {}) },
      usage: { prompt_tokens: reply.usage?.prompt_tokens ?? 10, completion_tokens: reply.usage?.completion_tokens ?? 5 },
      finish_reason: calls.length ? "tool_calls" : "stop",
    };
  }
}
