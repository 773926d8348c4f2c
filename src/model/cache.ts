import { AsyncLocalStorage } from "node:async_hooks";
import { createHash, randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { readRegularFile } from "../util/files.js";
import { abortedError } from "./abort.js";
import { cacheRoot } from "../util/cache-root.js";
import { checkOf, type ModelClient, type ModelReply, type ModelRequest } from "./types.js";

/** Version of the cache's key and entry format; entries of another version are never read. */
const CACHE_FORMAT = 1;

/** gitgood's cache directory (the response cache lives in its `responses/`). */
export const cacheDir = cacheRoot;

const ToolCallSchema = z.object({
  id: z.string(),
  type: z.literal("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

const EntrySchema = z.object({
  format: z.literal(CACHE_FORMAT),
  model: z.string(),
  reply: z.object({
    message: z.object({ role: z.literal("assistant"), content: z.string().nullable(), tool_calls: z.array(ToolCallSchema).optional() }),
    usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }),
    finish_reason: z.string().nullable(),
  }),
});

/** JSON with the keys of every object sorted, so equal values give equal text whatever built them. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * The messages as the key reads them: each text split at every nonce into the list of its pieces (an
 * encoding no text can imitate), so requests that differ only in their nonces share a key.
 */
function withoutNonces(messages: ModelRequest["messages"], nonces: readonly string[]): unknown[] {
  const nonempty = nonces.filter((n) => n !== "");
  if (nonempty.length === 0) return [...messages];
  const pieces = (text: string): string[] => nonempty.reduce<string[]>((parts, n) => parts.flatMap((p) => p.split(n)), [text]);
  return messages.map((m) => (typeof m.content === "string" ? { ...m, content: pieces(m.content) } : m));
}

/** What a cache entry is looked up by within a scope (see `inCacheScope`). */
const scope = new AsyncLocalStorage<string>();

/**
 * Runs `work` with its model requests cached apart from every other scope's (a run's repeat r ≥ 1 is its
 * own scope, so repeats are independent samples, and running the run again still answers from the cache).
 */
export function inCacheScope<T>(name: string | null, work: () => Promise<T>): Promise<T> {
  return name === null ? work() : scope.run(name, work);
}

/**
 * Model answers on disk, one file per request (`DIR/ab/abcdef….json`), keyed by a hash of the endpoint,
 * the model, the sampling parameters, the messages and the tools. Entries are written to a temporary
 * file and renamed into place, so concurrent writers (parallel samples, parallel runs) never leave half
 * an entry; an entry that cannot be read or parsed (damaged, a link, another format) is a miss.
 */
export class ResponseCache {
  constructor(readonly dir: string) {}

  /** The cache in gitgood's cache directory (`cacheDir()/responses`). */
  static default(): ResponseCache {
    return new ResponseCache(path.join(cacheDir(), "responses"));
  }

  /** The key of a request to `model` at `endpoint` (the API key and the abort signal are no part of it). */
  key(endpoint: string, model: string, request: ModelRequest): string {
    const material = {
      format: CACHE_FORMAT,
      scope: scope.getStore() ?? null,
      endpoint,
      model,
      temperature: request.temperature ?? null,
      max_tokens: request.max_tokens ?? null,
      seed: request.seed ?? null,
      json: request.json === true,
      messages: withoutNonces(request.messages, request.nonces ?? []),
      tools: request.tools ?? [],
    };
    return createHash("sha256").update(canonical(material), "utf8").digest("hex");
  }

  private file(key: string): string {
    return path.join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  /** The answer stored under `key` for `model`, or null (missing, damaged, a link, another model or format). */
  get(key: string, model: string): ModelReply | null {
    const text = readRegularFile(this.file(key));
    if (text === null) return null;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return null;
    }
    const parsed = EntrySchema.safeParse(raw);
    if (!parsed.success || parsed.data.model !== model) return null;
    const { message, usage, finish_reason } = parsed.data.reply;
    return {
      message: { role: "assistant", content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) },
      usage: { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens },
      finish_reason,
    };
  }

  /**
   * Stores an answer: written whole to a temporary file of its own, then renamed over any earlier entry.
   * A cache that cannot be written (a full disk, no permission) only costs the next run its hit.
   */
  put(key: string, model: string, reply: ModelReply): void {
    const file = this.file(key);
    const entry = { format: CACHE_FORMAT, model, created_at: new Date().toISOString(), reply };
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      const fd = openSync(tmp, "wx", 0o600);
      try {
        const bytes = Buffer.from(`${JSON.stringify(entry)}\n`, "utf8");
        for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, file);
    } catch {
      try {
        unlinkSync(tmp);
      } catch {
        // never made, or already renamed
      }
    }
  }
}

/**
 * A client that answers a request at temperature 0 from `cache` when it was answered before, and stores
 * every new answer of such a request. A request at another temperature (or none) always goes to the
 * endpoint. An answer from the cache spent no tokens: its usage is 0 and marked `cached`.
 */
export function withCache(inner: ModelClient, cache: ResponseCache, endpoint: string): ModelClient {
  return {
    model: inner.model,
    ...checkOf(inner),
    async complete(request: ModelRequest): Promise<ModelReply> {
      if (request.temperature !== 0) return inner.complete(request);
      if (request.signal?.aborted) throw abortedError(inner.model);
      const key = cache.key(endpoint, inner.model, request);
      const hit = cache.get(key, inner.model);
      if (hit) return { ...hit, usage: { prompt_tokens: 0, completion_tokens: 0, cached: true } };
      const reply = await inner.complete(request);
      cache.put(key, inner.model, reply);
      return reply;
    },
  };
}
