/** One function the model may call, in the OpenAI-compatible function-calling shape. */
export interface ToolSpec {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** A function call in a model's reply; `arguments` is the JSON text the model wrote, not yet parsed or checked. */
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** One message of a conversation with a model, in the OpenAI chat-completions shape; `tool` messages answer a `ToolCall` by its id. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** The tokens one request spent, as the endpoint counted them. */
export interface Usage {
  /** Every token of the prompt, those read from or written to the endpoint's prompt cache included. */
  prompt_tokens: number;
  /** The tokens of the answer. */
  completion_tokens: number;
  /** Of the prompt tokens, those the endpoint read from its prompt cache (when it says). */
  cache_read_tokens?: number;
  /** Of the prompt tokens, those the endpoint wrote to its prompt cache (Anthropic's cache_creation_input_tokens). */
  cache_write_tokens?: number;
  /** The answer came from the response cache: nothing was sent, so no tokens were spent (both counts are 0). */
  cached?: boolean;
}

/** A usage with the prompt cache's counts where they are not 0 (so an endpoint without a prompt cache records none). */
export function promptCacheUsage(prompt: number, completion: number, cacheRead: number, cacheWrite: number): Usage {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    ...(cacheRead > 0 ? { cache_read_tokens: cacheRead } : {}),
    ...(cacheWrite > 0 ? { cache_write_tokens: cacheWrite } : {}),
  };
}

/** One request to a model: the conversation so far, the functions it may call, and sampling settings. */
export interface ModelRequest {
  messages: readonly ChatMessage[];
  tools?: readonly ToolSpec[];
  temperature?: number;
  /** Upper bound on the tokens of the answer (sent as `max_tokens`). */
  max_tokens?: number;
  /** Sampling seed, for endpoints that support reproducible sampling. */
  seed?: number;
  /** Ask for a JSON object answer (models that support it). */
  json?: boolean;
  /**
   * Random strings the messages hold that are drawn anew for each request (a judge's fence token). They
   * are sent as they are; the response cache keys the request as if each were blank, so asking the same
   * thing again with a new draw still finds the answer.
   */
  nonces?: readonly string[];
  /**
   * Aborting it stops the request at once, the HTTP call and any pending retry, and the request
   * rejects with a GitGoodError of code ABORTED (a sample's time-out aborts its model call this way).
   */
  signal?: AbortSignal;
}

/** A model's answer: its message, what it cost, and why it stopped (`stop`, `tool_calls`, `length`…; null when the endpoint does not say). */
export interface ModelReply {
  message: Extract<ChatMessage, { role: "assistant" }>;
  usage: Usage;
  finish_reason: string | null;
}

/** The one thing an agent or a judge needs of a model. Tests use a scripted implementation. */
export interface ModelClient {
  readonly model: string;
  /**
   * Sends one request and resolves with the answer. Rejects with a GitGoodError: `ABORTED` when the request's signal
   * fires, else a `MODEL_…` code (`MODEL_AUTH`, `MODEL_RATE_LIMITED`, `MODEL_TIMEOUT`, `MODEL_ERROR`…) when the endpoint
   * fails or refuses after the client's retries.
   */
  complete(request: ModelRequest): Promise<ModelReply>;
  /**
   * Checks with one small request that the endpoint answers, takes the key and serves the model
   * (before a run, so that a wrong setting stops it at once); throws the request's error. A client
   * without it (a scripted one) needs no check.
   */
  check?(signal?: AbortSignal): Promise<void>;
}

/** The `check` of a wrapped client, for a wrapper (cache, parameters, limits) to offer as its own: it always reaches the endpoint. */
export function checkOf(inner: ModelClient): Pick<ModelClient, "check"> {
  const check = inner.check?.bind(inner);
  return check ? { check } : {};
}
