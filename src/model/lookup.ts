import { GitGoodError } from "../errors.js";
import { OpenAIChatClient } from "./openai.js";
import type { ModelClient } from "./types.js";

export interface ModelOptions {
  /** Default: OPENAI_BASE_URL, else the hosted OpenAI API. */
  baseURL?: string;
  /** Default: OPENAI_API_KEY. */
  apiKey?: string;
  /** The temperature of requests that name none. */
  temperature?: number;
  /** Retries on rate limits, server errors, lost connections and timeouts. */
  maxRetries?: number;
  /** Time limit of each attempt, ms. */
  timeoutMs?: number;
}

/**
 * The client for a model name as a user gives it (`--model`, `--judge`): the name goes to the
 * OpenAI-compatible endpoint as written, case included (`Qwen/Qwen2.5-72B-Instruct`), without
 * surrounding spaces.
 */
export function lookupModel(name: string, opts: ModelOptions = {}): ModelClient {
  const model = name.trim();
  if (model === "") throw new GitGoodError("BAD_OPTION", "a model name is empty: give one such as gpt-4o-mini");
  return new OpenAIChatClient({ ...opts, model });
}
