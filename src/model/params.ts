import { checkOf, type ModelClient, type ModelReply, type ModelRequest } from "./types.js";

/** Sampling parameters a user sets for every request of a command (`--temperature`, `--max-tokens`, `--seed`). */
export interface ModelParameters {
  temperature?: number;
  maxTokens?: number;
  seed?: number;
}

/** The request with the parameters that are set in place of the caller's own. */
function applyParameters(request: ModelRequest, params: ModelParameters): ModelRequest {
  return {
    ...request,
    ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
    ...(params.maxTokens !== undefined ? { max_tokens: params.maxTokens } : {}),
    ...(params.seed !== undefined ? { seed: params.seed } : {}),
  };
}

/**
 * A client that sends every request with the parameters given, whatever its caller (an agent, a judge)
 * asks for; parameters left unset are the caller's.
 */
export function withParameters(inner: ModelClient, params: ModelParameters): ModelClient {
  if (params.temperature === undefined && params.maxTokens === undefined && params.seed === undefined) return inner;
  return {
    model: inner.model,
    ...checkOf(inner),
    complete: (request: ModelRequest): Promise<ModelReply> => inner.complete(applyParameters(request, params)),
  };
}
