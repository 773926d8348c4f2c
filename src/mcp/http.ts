import { randomUUID } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { GitGoodError, toGitGoodError, type ErrorCode } from "../errors.js";
import { checkAccess, isLoopbackHost, requireTokenBeyondLoopback, type AccessPolicy } from "./guard.js";
import { createMcpServer } from "./server.js";
import type { Workbench } from "./workbench.js";

export { requireTokenBeyondLoopback } from "./guard.js";

const MCP_PATH = "/mcp";
const MAX_INIT_BODY = 1024 * 1024;

/** What an MCP HTTP server serves, where, and to whom. */
export interface HttpServeOptions {
  /** 0: a free port the system picks. */
  port: number;
  /** The address to listen on; a non-loopback one needs `token`. */
  host: string;
  /** The bearer token every request must carry. */
  token?: string;
  /** Origins a browser request may come from (besides none). */
  allowedOrigins: readonly string[];
  /** A session with no request for this long is closed as disconnected. */
  idleTimeoutSeconds: number;
  /** Makes the workbench of a new session. */
  makeBench: () => Promise<Workbench>;
  /** Told of sessions opened and closed, one line each. */
  log: (line: string) => void;
}

/** A running MCP server over HTTP, as `serveHttp` returns it. */
export interface HttpHandle {
  /** The MCP endpoint clients connect to, with the port the server actually bound. */
  url: string;
  /** Closes every session (settling open scenarios as disconnected) and stops listening. */
  close(): Promise<void>;
  /** Records every open scenario as an error at once, synchronously (the process is being stopped). */
  abandonAll(code: ErrorCode, message: string): void;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  bench: Workbench;
  lastSeen: number;
  /** Why the server closed it (an idle session, shut-down); unset when the client ended it. */
  why?: string;
}

/** Set-up refusals that are the client's to fix, by code, as HTTP statuses; anything else is the server's (500). */
const SETUP_STATUS: Record<string, number> = { ALREADY_ATTEMPTED: 409 };

export function reply(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });
  res.writeHead(status, { "Content-Type": "application/json", ...headers }).end(body);
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (b: Buffer) => {
      size += b.length;
      if (size > MAX_INIT_BODY) {
        reject(new GitGoodError("TOO_LARGE", "the request body is too large"));
        req.destroy();
        return;
      }
      chunks.push(b);
    });
    req.on("error", reject);
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch {
        reject(new GitGoodError("PARSE_ERROR", "the request body is not valid JSON"));
      }
    });
  });
}

/**
 * Reads the first request of a new session: its JSON body if it is an `initialize` request, else null
 * after answering 400 (a body too large or not JSON, or another request without a session).
 */
export async function readInitialize(req: IncomingMessage, res: ServerResponse): Promise<unknown | null> {
  let body: unknown;
  try {
    body = await readJson(req);
  } catch (err) {
    reply(res, 400, toGitGoodError(err).message);
    return null;
  }
  if (!isInitializeRequest(body)) {
    reply(res, 400, "no session: the first request must be an initialize request (without an Mcp-Session-Id header)");
    return null;
  }
  return body;
}

/**
 * Serves MCP over Streamable HTTP at `http://HOST:PORT/mcp`, one workbench per MCP session. Every
 * request passes the access checks (Origin, Host when on loopback, bearer token when one is set)
 * before it reaches the SDK. A session ends when the client deletes it, when it has been idle too
 * long, or when the server closes; its open scenario is then settled like a stdio disconnect.
 *
 * It stays on node:http rather than the SDK's `createMcpExpressApp`: that app parses every JSON body
 * (up to express's 100 KB, which a tool call carrying a file exceeds) before any middleware added to it
 * runs, so a request would be read before its token is checked; the protocol itself is the SDK's
 * `StreamableHTTPServerTransport`.
 */
export async function serveHttp(opts: HttpServeOptions): Promise<HttpHandle> {
  requireTokenBeyondLoopback(opts.host, opts.token);
  const policy: AccessPolicy = { token: opts.token, allowedOrigins: opts.allowedOrigins, loopback: isLoopbackHost(opts.host) };
  const sessions = new Map<string, Session>();
  const settling = new Set<Promise<void>>();

  const open = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readInitialize(req, res);
    if (body === null) return;
    let bench: Workbench;
    try {
      bench = await opts.makeBench();
    } catch (err) {
      const error = toGitGoodError(err);
      reply(res, SETUP_STATUS[error.code] ?? 500, `cannot set the scenario up: ${error.message}`);
      return;
    }
    const server = createMcpServer(bench, "http");
    const session: Session = {
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, session);
          opts.log(`session ${id} opened`);
        },
      }),
      server,
      bench,
      lastSeen: Date.now(),
    };
    server.onclose = () => {
      const id = session.transport.sessionId;
      if (id) sessions.delete(id);
      const done = bench.close(session.why ?? "the client ended the session").catch((err: unknown) => {
        opts.log(`closing session ${id ?? "?"} failed: ${toGitGoodError(err).message}`);
      });
      settling.add(done);
      void done.finally(() => settling.delete(done));
      if (id) opts.log(`session ${id} closed`);
    };
    await server.connect(session.transport);
    await session.transport.handleRequest(req, res, body);
    if (!session.transport.sessionId || !sessions.has(session.transport.sessionId)) await session.transport.close();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== MCP_PATH) {
      reply(res, 404, `not found: the MCP endpoint is ${MCP_PATH}`);
      return;
    }
    const denied = checkAccess(req.headers, policy);
    if (denied) {
      reply(res, denied.status, denied.message, denied.headers);
      return;
    }
    const header = req.headers["mcp-session-id"];
    const id = Array.isArray(header) ? header[0] : header;
    if (id === undefined) {
      if (req.method !== "POST") {
        reply(res, 400, "no session: the first request must be an initialize request (POST)");
        return;
      }
      await open(req, res);
      return;
    }
    const session = sessions.get(id);
    if (!session) {
      reply(res, 404, "unknown or expired session: initialize a new one");
      return;
    }
    session.lastSeen = Date.now();
    await session.transport.handleRequest(req, res);
  };

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      opts.log(`request failed: ${toGitGoodError(err).message}`);
      reply(res, 500, "internal error");
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", (err: NodeJS.ErrnoException) =>
      reject(new GitGoodError("LISTEN_FAILED", `cannot listen on ${opts.host}:${opts.port}: ${err.code ?? err.message}`)),
    );
    httpServer.listen(opts.port, opts.host, () => resolve());
  });

  const idleMs = opts.idleTimeoutSeconds * 1000;
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const s of sessions.values()) {
        if (now - s.lastSeen <= idleMs || s.why) continue;
        s.why = `the client sent no request for ${opts.idleTimeoutSeconds} s`;
        void s.transport.close().catch(() => undefined);
      }
    },
    Math.max(200, Math.min(30_000, idleMs / 2)),
  );
  sweep.unref();

  const address = httpServer.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}${MCP_PATH}`,
    async close() {
      clearInterval(sweep);
      const closing = [...sessions.values()].map((s) => {
        s.why = "the server was stopped";
        return s.transport.close().catch(() => undefined);
      });
      await Promise.all(closing);
      await Promise.all([...settling]);
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
    abandonAll(code, message) {
      for (const s of sessions.values()) s.bench.abandonNow(code, message);
    },
  };
}
