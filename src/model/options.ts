import type { ResponseCache } from "./cache.js";
import type { RequestLimit } from "./connections.js";
import type { ModelParameters } from "./params.js";

/** The endpoint of the hosted OpenAI API, where requests go when no base URL is given. */
const OPENAI_API = "https://api.openai.com/v1";

export interface ModelOptions extends ModelParameters {
  /** Default: the provider's own variable (OPENAI_BASE_URL, ANTHROPIC_BASE_URL), else its hosted API. */
  baseURL?: string;
  /** Default: the provider's own variable (OPENAI_API_KEY, ANTHROPIC_API_KEY). */
  apiKey?: string;
  /** Retries on rate limits, server errors, lost connections and timeouts. */
  maxRetries?: number;
  /** Time limit of each attempt, ms. */
  timeoutMs?: number;
  /** Answers of requests at temperature 0 are kept here and given again for the same request (none: no cache). */
  cache?: ResponseCache;
  /** A cap on requests in flight, shared with the other clients given the same limit (none: no cap). */
  connections?: RequestLimit;
}

/** The OpenAI-compatible endpoint requests go to, as the cache keys it. */
export function endpointOf(baseURL?: string): string {
  return baseURL || process.env.OPENAI_BASE_URL || OPENAI_API;
}
