import { GitGoodError } from "../errors.js";
import { withCache } from "./cache.js";
import { withConnectionLimit } from "./connections.js";
import type { ModelOptions } from "./options.js";
import { withParameters } from "./params.js";
import { DEFAULT_PROVIDER, resolveProvider } from "./providers/index.js";
import type { ModelClient } from "./types.js";

export { endpointOf, type ModelOptions } from "./options.js";

/**
 * The endpoint a model name's requests go to as the user set it (`anthropic/…`: ANTHROPIC_BASE_URL; the
 * OpenAI providers: OPENAI_BASE_URL), for run.json; null when the provider's default is used, or the name is
 * no model's.
 */
export function modelEndpoint(name: string, opts: ModelOptions = {}): string | null {
  try {
    const { provider } = resolveProvider(name.trim(), DEFAULT_PROVIDER);
    return provider.configuredEndpoint(opts);
  } catch {
    return null;
  }
}

/**
 * The client for a model name as a user gives it (`--model`, `--judge`): `provider/model` picks a registered
 * provider (`scripted/replies.json`); any other name goes to the OpenAI-compatible endpoint as written, case
 * included (`Qwen/Qwen2.5-72B-Instruct`), without surrounding spaces. The parameters given (temperature, max
 * tokens, seed) are set on every request; with a cache, requests at temperature 0 are answered from it where
 * they can be (keyed by the provider's endpoint), and only requests that go to the endpoint take one of
 * `connections`. Throws `BAD_OPTION` for an empty name, and whatever the provider's `create` throws for a name it cannot serve.
 */
export function lookupModel(name: string, opts: ModelOptions = {}): ModelClient {
  const trimmed = name.trim();
  if (trimmed === "") throw new GitGoodError("BAD_OPTION", "a model name is empty: give one such as gpt-4o-mini");
  const { provider, model } = resolveProvider(trimmed, DEFAULT_PROVIDER);
  let client = provider.create(model, opts);
  if (opts.connections) client = withConnectionLimit(client, opts.connections);
  const endpoint = provider.cacheEndpoint(model, opts);
  if (opts.cache && endpoint !== null) client = withCache(client, opts.cache, endpoint);
  return withParameters(client, opts);
}
