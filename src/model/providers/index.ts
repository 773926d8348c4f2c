// The built-in model providers: one line each. A new provider is a file beside these and a line here.
import { anthropicProvider } from "./anthropic.js";
import { openaiProvider } from "./openai.js";
import { openaiResponsesProvider } from "./openai-responses.js";
import { registerProvider } from "./registry.js";
import { scriptedProvider } from "./scripted.js";

registerProvider(openaiProvider);
registerProvider(openaiResponsesProvider);
registerProvider(anthropicProvider);
registerProvider(scriptedProvider);

/** The provider a name without a registered `provider/` prefix goes to. */
export const DEFAULT_PROVIDER = openaiProvider.name;

export { listProviders, registerProvider, resolveProvider, type ModelProvider } from "./registry.js";
