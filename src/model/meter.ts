import { checkOf, type ModelClient, type ModelReply, type ModelRequest } from "./types.js";

/** What the requests through one client cost: answered requests, answers from the cache, tokens spent. */
export interface ModelUsage {
  model: string;
  requests: number;
  cache_hits: number;
  prompt_tokens: number;
  completion_tokens: number;
}

/** A client that counts what goes through it (a judge's requests while one attempt is scored, say). */
export class MeteredModelClient implements ModelClient {
  readonly model: string;
  readonly usage: ModelUsage;

  readonly check?: ModelClient["check"];

  constructor(private readonly inner: ModelClient) {
    this.model = inner.model;
    this.check = checkOf(inner).check;
    this.usage = { model: inner.model, requests: 0, cache_hits: 0, prompt_tokens: 0, completion_tokens: 0 };
  }

  /** Passes the request on and adds its answer to `usage`; a failed request is not counted. */
  async complete(request: ModelRequest): Promise<ModelReply> {
    const reply = await this.inner.complete(request);
    this.usage.requests++;
    if (reply.usage.cached) this.usage.cache_hits++;
    this.usage.prompt_tokens += reply.usage.prompt_tokens;
    this.usage.completion_tokens += reply.usage.completion_tokens;
    return reply;
  }
}
