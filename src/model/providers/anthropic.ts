import { AnthropicClient, anthropicBaseURL } from "../anthropic.js";
import type { ModelProvider } from "./registry.js";

/** `anthropic/MODEL`: the Anthropic Messages API, tool use and prompt caching included. */
export const anthropicProvider: ModelProvider = {
  name: "anthropic",
  description: "the Anthropic Messages API (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY): anthropic/claude-sonnet-4-5",
  create: (model, opts) => new AnthropicClient({ model, baseURL: opts.baseURL, apiKey: opts.apiKey, maxRetries: opts.maxRetries, timeoutMs: opts.timeoutMs }),
  cacheEndpoint: (_model, opts) => `${anthropicBaseURL(opts.baseURL)}/v1/messages`,
  configuredEndpoint: (opts) => opts.baseURL || process.env.ANTHROPIC_BASE_URL || null,
};
