import { AsyncLocalStorage } from "node:async_hooks";
import { createHash, randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import net from "node:net";
import { GitGoodError } from "../errors.js";
import type { ResponseCache } from "../model/cache.js";
import type { RequestLimit } from "../model/connections.js";
import type { ChatMessage, Usage } from "../model/types.js";
import { geminiQueryKey } from "./gemini.js";
import { familyOf, replyOfJson, replyOfStream, requestFacts, requestMessages, routeOf, type ApiKind, type TurnReply, type UpstreamFamily } from "./api.js";
import { answerTokens, recordedTokens, type AnswerTokens } from "./tokens.js";
import type { RecordModelIo } from "./types.js";

/** The user's real endpoint of one API family, and the key it takes (the agent never sees it). */
export interface Upstream {
  /** OpenAI: the base URL with its `/v1` (as OPENAI_BASE_URL); Anthropic and Gemini: without it (as ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL). */
  baseURL: string;
  apiKey: string;
}

/** What a model proxy forwards to and how: the real endpoints by API family, the response cache, the cap on requests in flight, how much it records, and the time limit of a request. */
export interface ProxyOptions {
  /** The user's real endpoints, by API family (a family without one is refused). */
  upstreams: Partial<Record<UpstreamFamily, Upstream>>;
  /** The run's response cache: a request at temperature 0 asked before is answered from it (its raw answer, streams included). */
  cache?: ResponseCache;
  /** The run's cap on model requests in flight (`--max-connections`), shared with the judges. */
  connections?: RequestLimit;
  /** How much of each request the trajectory keeps (default: its count and digest). */
  record?: RecordModelIo;
  /** Time limit of one upstream request, ms (default 600,000); the attempt's own time limit ends it sooner. */
  timeoutMs?: number;
}

/** Where the proxy writes what it sees of an attempt's model calls (an agent's session). */
export interface ProxyRecorder {
  /** Records one model answer and its token usage. */
  recordModel(message: ChatMessage, usage?: Usage): void;
  /** Records a note in the trajectory (a failed call, an answer that was not OK, the tokens counted). */
  note(type: "note", text: string): void;
}

/** One attempt's way in: the key its agent sends, the TCP base URL on loopback, and the Unix socket when one was asked for. */
export interface ProxyAttempt {
  readonly key: string;
  /** `http://127.0.0.1:PORT`, without `/v1`. */
  readonly url: string;
  readonly port: number;
  readonly socket: string | null;
  /** Model calls recorded so far. */
  readonly calls: number;
  /** Stops taking this attempt's key and closes its socket; calls still in flight are not recorded. */
  close(): Promise<void>;
}

interface Live {
  recorder: ProxyRecorder;
  signal: AbortSignal;
  /** Runs a function in the async context the attempt was opened in (the response cache's scope of a repeat). */
  inScope: <R>(fn: () => R) => R;
  calls: number;
  open: boolean;
}

const MAX_BODY = 64 << 20;
/** Bytes of an answer kept to read its usage; a longer answer is passed on whole but counted from its start only. */
const MAX_KEPT = 32 << 20;
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection", "te", "trailer", "host", "content-length"]);

function keyOf(req: IncomingMessage): string | null {
  const auth = req.headers.authorization;
  if (typeof auth === "string" && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, "").trim();
  const x = req.headers["x-api-key"] ?? req.headers["x-goog-api-key"];
  return typeof x === "string" ? x.trim() : geminiQueryKey(req.url ?? "");
}

function sendError(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: { type: "gitgood_proxy_error", message } });
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on("data", (b: Buffer) => {
      size += b.length;
      if (size > MAX_BODY) {
        resolve(null);
        req.destroy();
        return;
      }
      parts.push(b);
    });
    req.on("end", () => resolve(Buffer.concat(parts)));
    req.on("error", reject);
  });
}

/** The headers a request goes upstream with: the agent's, without its key and hop-by-hop ones, with the user's key (and a body's length, when it has one). */
function upstreamHeaders(req: IncomingMessage, family: UpstreamFamily, upstream: Upstream, length: number | null): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (HOP_BY_HOP.has(name) || name === "authorization" || name === "x-api-key" || name === "x-goog-api-key" || name === "accept-encoding" || value === undefined) continue;
    out[name] = value;
  }
  // Uncompressed, so the proxy can read the usage fields.
  out["accept-encoding"] = "identity";
  if (length !== null) out["content-length"] = length;
  if (family === "anthropic") out["x-api-key"] = upstream.apiKey;
  else if (family === "gemini") out["x-goog-api-key"] = upstream.apiKey;
  else out.authorization = `Bearer ${upstream.apiKey}`;
  return out;
}

const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

interface Exchange {
  status: number;
  contentType: string;
  kept: Buffer;
}

/**
 * Sends one request upstream with its own method (a GET without a body) and streams the answer to `res` as
 * it comes, keeping its first MAX_KEPT bytes. Ends with the attempt's signal, the time limit, or the agent
 * hanging up.
 */
function exchange(method: "GET" | "POST", target: URL, headers: http.OutgoingHttpHeaders, body: Buffer, res: ServerResponse, signal: AbortSignal, timeoutMs: number): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const lib = target.protocol === "https:" ? https : http;
    const up = lib.request(target, { method, headers, agent: target.protocol === "https:" ? agents.https : agents.http, signal, timeout: timeoutMs });
    up.on("timeout", () => up.destroy(new GitGoodError("TIMEOUT", `the model endpoint did not answer within ${timeoutMs} ms`)));
    up.on("error", reject);
    // Small writes go out at once (no Nagle delay against the other side's delayed acknowledgement).
    up.on("socket", (socket) => socket.setNoDelay(true));
    res.socket?.setNoDelay(true);
    res.on("close", () => {
      if (!res.writableFinished) up.destroy();
    });
    up.on("response", (answer) => {
      const headersOut: http.OutgoingHttpHeaders = {};
      // The bytes pass unchanged, so the upstream's content-length holds (a whole answer is not re-chunked).
      for (const [name, value] of Object.entries(answer.headers)) if ((name === "content-length" || !HOP_BY_HOP.has(name)) && value !== undefined) headersOut[name] = value;
      res.writeHead(answer.statusCode ?? 502, headersOut);
      const parts: Buffer[] = [];
      let kept = 0;
      let corked = false;
      const uncork = (): void => {
        corked = false;
        res.uncork();
      };
      answer.on("data", (b: Buffer) => {
        if (kept < MAX_KEPT) {
          parts.push(b);
          kept += b.length;
        }
        // The pieces that arrive together (a stream's events, read at once) go out together, in one write.
        if (!corked) {
          corked = true;
          res.cork();
          process.nextTick(uncork);
        }
        res.write(b);
      });
      answer.on("end", () => {
        res.end();
        resolve({ status: answer.statusCode ?? 502, contentType: String(answer.headers["content-type"] ?? ""), kept: Buffer.concat(parts) });
      });
      answer.on("error", reject);
    });
    if (method === "POST") up.end(body);
    else up.end();
  });
}

/** What to write for a request's messages: their count and digest, or the messages themselves. */
function messagesLine(messages: unknown[], mode: RecordModelIo): string {
  const text = JSON.stringify(messages);
  const digest = createHash("sha256").update(text, "utf8").digest("hex").slice(0, 16);
  return mode === "full" ? `${messages.length} message(s) sha256:${digest}\n${text}` : `${messages.length} message(s) sha256:${digest}`;
}

function usageLine(reply: TurnReply): string {
  const u = reply.usage;
  if (!u) return "no usage reported";
  return `tokens ${u.prompt} in (cache read ${u.cacheRead}, written ${u.cacheWrite}) / ${u.completion} out`;
}

/** How the note of a model call's token fields begins: `tokens of model call N: {…}`. */
const TOKENS_NOTE = "tokens of model call";

/**
 * The recording model proxy of a run. External agents (command, mcp-command, the CLI-agent presets) talk to
 * it as they would to their model API, each attempt with a key of its own; it forwards each request to the
 * user's real endpoint with the user's real key, streams the answer back unchanged, and records the call
 * into the attempt's trajectory as a model turn with its tokens (from the answer's usage fields, streams
 * included), latency and cache hits. Requests with any other key are refused. It listens on 127.0.0.1 (an
 * agent without a jail, or with the network) and on a Unix socket per attempt (reached from inside a jail
 * through the forwarder, ./forwarder.ts).
 */
export class ModelProxy {
  private readonly live = new Map<string, Live>();
  private constructor(
    private readonly server: http.Server,
    readonly port: number,
    private readonly opts: ProxyOptions,
  ) {}

  /** Starts the proxy on a free port of 127.0.0.1. */
  static async start(opts: ProxyOptions): Promise<ModelProxy> {
    let proxy: ModelProxy | null = null;
    const server = http.createServer((req, res) => {
      (proxy as ModelProxy).handle(req, res).catch((err: unknown) => sendError(res, 502, err instanceof Error ? err.message : String(err)));
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      server.once("error", (e) => reject(new GitGoodError("LISTEN_FAILED", `the model proxy cannot listen on 127.0.0.1: ${e.message}`)));
      server.listen(0, "127.0.0.1", () => resolve());
    });
    // The proxy never keeps gitgood running by itself.
    server.unref();
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    proxy = new ModelProxy(server, port, opts);
    return proxy;
  }

  /** The proxy's base URL on loopback, `http://127.0.0.1:PORT`. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * Opens an attempt: a fresh key, recorded into `recorder` until `signal` aborts or the attempt is closed.
   * With `socketPath`, the proxy also listens on that Unix socket (for an agent in a jail).
   */
  async attempt(recorder: ProxyRecorder, signal: AbortSignal, socketPath?: string): Promise<ProxyAttempt> {
    const key = `gitgood-${randomBytes(24).toString("hex")}`;
    const state: Live = { recorder, signal, inScope: AsyncLocalStorage.snapshot(), calls: 0, open: true };
    this.live.set(key, state);
    let unix: net.Server | null = null;
    if (socketPath) {
      const s = net.createServer((socket) => this.server.emit("connection", socket));
      await new Promise<void>((resolve, reject) => {
        s.once("error", (e) => reject(new GitGoodError("LISTEN_FAILED", `the model proxy cannot listen on ${socketPath}: ${e.message}`)));
        s.listen(socketPath, () => resolve());
      });
      s.unref();
      unix = s;
    }
    const drop = (): void => {
      state.open = false;
      this.live.delete(key);
    };
    signal.addEventListener("abort", drop, { once: true });
    const url = this.url;
    const port = this.port;
    return {
      key,
      url,
      port,
      socket: socketPath ?? null,
      get calls() {
        return state.calls;
      },
      close: async () => {
        drop();
        signal.removeEventListener("abort", drop);
        if (unix) {
          await new Promise<void>((resolve) => (unix).close(() => resolve()));
          if (socketPath) rmSync(socketPath, { force: true });
        }
      },
    };
  }

  /** Stops taking requests and closes every attempt's way in. */
  async close(): Promise<void> {
    for (const s of this.live.values()) s.open = false;
    this.live.clear();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if ((req.method === "HEAD" || req.method === "GET") && req.url === "/") {
      // A client's check that its endpoint is up (Claude Code sends one): answered here, without a key.
      req.resume();
      res.writeHead(200, { "content-length": 0 });
      res.end();
      return;
    }
    const key = keyOf(req);
    const att = key !== null ? this.live.get(key) : undefined;
    if (!att) {
      req.resume();
      sendError(res, 401, "unknown key: this proxy serves only the attempts gitgood is running");
      return;
    }
    const method = req.method === "GET" || req.method === "POST" ? req.method : null;
    const route = method ? routeOf(method, req.url ?? "/") : null;
    if (!method || !route) {
      req.resume();
      sendError(res, 404, `the gitgood model proxy does not serve ${req.method ?? ""} ${req.url ?? ""}: only its model APIs' routes, on paths without '.', '..' or empty segments, encoded '.', '/', '%' or backslashes`);
      return;
    }
    const family = route.record ? familyOf(route.kind) : route.family;
    const upstream = this.opts.upstreams[family];
    if (!upstream) {
      req.resume();
      const env = { openai: "OPENAI_BASE_URL and OPENAI_API_KEY", anthropic: "ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY", gemini: "GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY" }[family];
      sendError(res, 502, `no ${family} endpoint is configured for this run (set ${env})`);
      return;
    }
    let body = await readBody(req);
    if (body === null) {
      sendError(res, 413, "the request body is larger than the proxy takes");
      return;
    }
    if (method === "GET" && body.length > 0) {
      sendError(res, 400, `a GET request carries no body: ${req.url ?? ""}`);
      return;
    }
    const target = new URL(upstream.baseURL.replace(/\/+$/, "") + route.path);
    const timeoutMs = this.opts.timeoutMs ?? 600_000;
    if (!route.record) {
      await this.passThrough(att, method, target, upstreamHeaders(req, family, upstream, method === "POST" ? body.length : null), body, res, timeoutMs);
      return;
    }
    let parsed: Record<string, unknown>;
    try {
      const v: unknown = JSON.parse(body.toString("utf8"));
      if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error("not an object");
      parsed = v as Record<string, unknown>;
    } catch {
      sendError(res, 400, "the request body is not a JSON object");
      return;
    }
    const facts = requestFacts(parsed, route);
    if (route.kind === "openai-chat" && facts.stream && parsed.stream_options === undefined) {
      // Ask for the usage chunk at the end of the stream, which chat completions send only when asked.
      parsed = { ...parsed, stream_options: { include_usage: true } };
      body = Buffer.from(JSON.stringify(parsed), "utf8");
    }
    const messages = requestMessages(route.kind, parsed);
    const started = performance.now();
    const cache = facts.temperature === 0 ? this.opts.cache : undefined;
    const cacheKey = cache ? att.inScope(() => cache.key(`proxy:${route.kind}:${target.origin}${target.pathname}`, facts.model, { messages: [{ role: "user", content: body.toString("utf8") }], temperature: 0 })) : null;
    const hit = cache && cacheKey ? cache.get(cacheKey, facts.model) : null;
    if (hit && typeof hit.message.content === "string") {
      const text = hit.message.content;
      res.writeHead(200, { "content-type": hit.finish_reason ?? "application/json", "content-length": Buffer.byteLength(text) });
      res.end(text);
      const reply = facts.stream ? replyOfStream(route.kind, text) : replyOfJson(route.kind, JSON.parse(text));
      this.record(att, route.kind, facts.model, messages, 200, performance.now() - started, reply, true);
      this.recordTokens(att, answerTokens(route.kind, text, facts.stream));
      return;
    }
    const send = (): Promise<Exchange> => exchange(method, target, upstreamHeaders(req, family, upstream, body.length), body, res, att.signal, timeoutMs);
    let answer: Exchange;
    try {
      answer = this.opts.connections ? await this.opts.connections.run(send, att.signal, facts.model) : await send();
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      if (att.open) att.recorder.note("note", `model call through the proxy failed: ${route.kind} ${facts.model}: ${why}`);
      sendError(res, 502, `the model endpoint cannot be reached: ${why}`);
      return;
    }
    const ms = performance.now() - started;
    const text = answer.kept.toString("utf8");
    if (answer.status < 200 || answer.status >= 300) {
      if (att.open) att.recorder.note("note", `model call through the proxy: ${route.kind} ${facts.model} answered ${answer.status} in ${Math.round(ms)} ms: ${text.slice(0, 500)}`);
      return;
    }
    let reply: TurnReply;
    const streamed = answer.contentType.includes("text/event-stream") || facts.stream;
    try {
      reply = streamed ? replyOfStream(route.kind, text) : replyOfJson(route.kind, JSON.parse(text));
    } catch {
      reply = { message: { role: "assistant", content: null }, usage: null, stop: null };
    }
    if (cache && cacheKey && reply.usage) {
      cache.put(cacheKey, facts.model, {
        message: { role: "assistant", content: text },
        usage: { prompt_tokens: reply.usage.prompt, completion_tokens: reply.usage.completion },
        finish_reason: answer.contentType || "application/json",
      });
    }
    this.record(att, route.kind, facts.model, messages, answer.status, ms, reply, false);
    this.recordTokens(att, answerTokens(route.kind, text, streamed));
  }

  /** The answer's token ids and log-probabilities, when the endpoint gave them: a note after its model turn, as JSON. */
  private recordTokens(att: Live, tokens: AnswerTokens | null): void {
    if (!att.open || !tokens) return;
    const full = (this.opts.record ?? "digest") === "full";
    att.recorder.note("note", `${TOKENS_NOTE} ${att.calls}: ${JSON.stringify(recordedTokens(tokens, full))}`);
  }

  /** A call that is not a model turn (a model list, a token count): forwarded as it came, and noted in the trajectory with its outcome. */
  private async passThrough(att: Live, method: "GET" | "POST", target: URL, headers: http.OutgoingHttpHeaders, body: Buffer, res: ServerResponse, timeoutMs: number): Promise<void> {
    const started = performance.now();
    const what = `${method} ${target.pathname}`;
    try {
      const answer = await exchange(method, target, headers, body, res, att.signal, timeoutMs);
      if (att.open) att.recorder.note("note", `call through the proxy (not a model turn): ${what} answered ${answer.status} in ${Math.round(performance.now() - started)} ms`);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      if (att.open) att.recorder.note("note", `call through the proxy (not a model turn) failed: ${what}: ${why}`);
      sendError(res, 502, `the model endpoint cannot be reached: ${why}`);
    }
  }

  private record(att: Live, kind: ApiKind, model: string, messages: unknown[], status: number, ms: number, reply: TurnReply, cached: boolean): void {
    if (!att.open) return;
    att.calls++;
    const mode = this.opts.record ?? "digest";
    att.recorder.note(
      "note",
      `model call ${att.calls} through the proxy: ${kind} ${model}, ${status} in ${Math.round(ms)} ms${cached ? " from the response cache" : ""}, ${usageLine(reply)}, stop ${reply.stop ?? "none"}; request: ${messagesLine(messages, mode)}`,
    );
    const usage: Usage = cached
      ? { prompt_tokens: 0, completion_tokens: 0, cached: true }
      : { prompt_tokens: reply.usage?.prompt ?? 0, completion_tokens: reply.usage?.completion ?? 0 };
    att.recorder.recordModel(reply.message, usage);
  }
}
