// gitgood/model: the model side, for code that talks to models or adds a provider: the client interface,
// the OpenAI-compatible client, the provider registry, and the wrappers (cache, connection limit,
// parameters, metering) the runner puts around a client.
export type { ModelClient, ModelRequest, ModelReply, ChatMessage, ToolSpec, ToolCall, Usage } from "./model/types.js";
export { OpenAIChatClient, type OpenAIClientOptions } from "./model/openai.js";
export { lookupModel, type ModelOptions } from "./model/lookup.js";
export { registerProvider, listProviders, type ModelProvider } from "./model/providers/registry.js";
export { ResponseCache, withCache } from "./model/cache.js";
export { ConnectionLimit, withConnectionLimit } from "./model/connections.js";
export type { RequestLimit } from "./model/connections.js";
export { withParameters, type ModelParameters } from "./model/params.js";
export { MeteredModelClient, type ModelUsage } from "./model/meter.js";
export type { Prices } from "./model/prices.js";
