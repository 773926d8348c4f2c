import { OpenAIChatClient } from "../openai.js";
import { endpointOf } from "../options.js";
import type { ModelProvider } from "./registry.js";

/** Any OpenAI-compatible chat-completions endpoint: hosted APIs, vLLM, llama.cpp, Ollama (the default provider). */
export const openaiProvider: ModelProvider = {
  name: "openai",
  description: "an OpenAI-compatible chat-completions endpoint (OPENAI_BASE_URL, OPENAI_API_KEY); the default",
  create: (model, opts) =>
    new OpenAIChatClient({ model, baseURL: opts.baseURL, apiKey: opts.apiKey, maxRetries: opts.maxRetries, timeoutMs: opts.timeoutMs }),
  cacheEndpoint: (_model, opts) => endpointOf(opts.baseURL),
  configuredEndpoint: (opts) => opts.baseURL || process.env.OPENAI_BASE_URL || null,
};
