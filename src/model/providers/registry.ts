import { GitGoodError } from "../../errors.js";
import type { ModelOptions } from "../options.js";
import type { ModelClient } from "../types.js";

/**
 * A kind of model endpoint (an API dialect, or a local stand-in). A model name picks one by its prefix,
 * `provider/model`; a name whose prefix is no provider's goes to the default, OpenAI-compatible one whole.
 */
export interface ModelProvider {
  /** The prefix that picks it (`openai` in `openai/gpt-4o`). */
  readonly name: string;
  /** One line for `--help` and the README. */
  readonly description: string;
  /** A client for `model` (the name after the prefix). */
  create(model: string, opts: ModelOptions): ModelClient;
  /**
   * Where requests go, as the response cache keys it (two providers, or two endpoints of one, never share
   * answers); null: this provider's answers are not cached.
   */
  cacheEndpoint(model: string, opts: ModelOptions): string | null;
  /** The base URL the user set for it (the options' or its variable, such as ANTHROPIC_BASE_URL), as run.json records it; null: its default, or none. */
  configuredEndpoint(opts: ModelOptions): string | null;
}

const providers = new Map<string, ModelProvider>();

/** Adds a provider; its name must be new. */
export function registerProvider(provider: ModelProvider): void {
  if (!/^[a-z][a-z0-9-]*$/.test(provider.name)) throw new Error(`provider name '${provider.name}' must be lower-case letters, digits and '-'`);
  if (providers.has(provider.name)) throw new Error(`a model provider named '${provider.name}' is already registered`);
  providers.set(provider.name, provider);
}

/** Every registered provider, in the order they were registered (built-in ones first). */
export function listProviders(): ModelProvider[] {
  return [...providers.values()];
}

/**
 * The provider a model name picks and the model name it is given: `provider/model` for a registered
 * provider, else `fallback` with the name whole (`Qwen/Qwen2.5-72B-Instruct` stays one OpenAI-compatible name).
 */
export function resolveProvider(name: string, fallback: string): { provider: ModelProvider; model: string } {
  const slash = name.indexOf("/");
  const prefixed = slash > 0 ? providers.get(name.slice(0, slash)) : undefined;
  if (prefixed) {
    const model = name.slice(slash + 1).trim();
    if (model === "") throw new GitGoodError("BAD_OPTION", `the model name '${name}' names the provider '${prefixed.name}' but no model after it`);
    return { provider: prefixed, model };
  }
  const provider = providers.get(fallback);
  if (!provider) throw new GitGoodError("BAD_OPTION", `no model provider '${fallback}'; known: ${[...providers.keys()].join(", ")}`);
  return { provider, model: name };
}
