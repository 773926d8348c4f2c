import { endpointOf } from "../options.js";
import { OpenAIResponsesClient } from "../responses.js";
import type { ModelProvider } from "./registry.js";

/** `openai-responses/MODEL`: the OpenAI Responses API, at the same endpoint and key as the chat-completions provider. */
export const openaiResponsesProvider: ModelProvider = {
  name: "openai-responses",
  description: "the OpenAI Responses API (OPENAI_BASE_URL, OPENAI_API_KEY): openai-responses/gpt-5",
  create: (model, opts) => new OpenAIResponsesClient({ model, baseURL: opts.baseURL, apiKey: opts.apiKey, maxRetries: opts.maxRetries, timeoutMs: opts.timeoutMs }),
  cacheEndpoint: (_model, opts) => `${endpointOf(opts.baseURL)}/responses`,
  configuredEndpoint: (opts) => opts.baseURL || process.env.OPENAI_BASE_URL || null,
};
