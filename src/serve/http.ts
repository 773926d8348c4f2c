import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { checkAccess, isLoopbackHost, requireTokenBeyondLoopback, type AccessPolicy } from "../mcp/guard.js";

/** The largest request body a client may send (a tool call carrying a whole file fits). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Where a protocol server listens, and who may talk to it: every request passes the door first. */
export interface DoorOptions {
  /** 0: a free port the system picks. */
  port: number;
  host: string;
  /** The bearer token every request (and WebSocket handshake) must carry. */
  token: string;
  /** Browser origins allowed besides the local ones. */
  allowedOrigins: readonly string[];
  log: (line: string) => void;
}

/** What a protocol answers: each request after the door let it through, and WebSocket upgrades (none: refused). */
export interface Routes {
  request(req: IncomingMessage, res: ServerResponse): Promise<void>;
  upgrade?(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

export interface Listening {
  /** http://HOST:PORT */
  url: string;
  close(): Promise<void>;
}

/** Answers with a JSON body. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { "Content-Type": "application/json", ...headers }).end(JSON.stringify(body));
}

/** Reads a JSON request body (an empty body is `{}`); a body too large or not JSON fails with a GitGoodError. */
export function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (b: Buffer) => {
      size += b.length;
      if (size > MAX_BODY_BYTES) {
        reject(new GitGoodError("TOO_LARGE", `a request body may have at most ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(b);
    });
    req.on("error", reject);
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      if (text.trim() === "") {
        resolve({});
        return;
      }
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(new GitGoodError("PARSE_ERROR", "the request body is not valid JSON"));
      }
    });
  });
}

/** The token of `Authorization: Basic base64(USER:TOKEN)` (any user), or null for another header. */
function basicToken(authorization: string | undefined): string | null {
  const m = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(authorization?.trim() ?? "");
  if (!m) return null;
  const pair = Buffer.from(m[1] as string, "base64").toString("utf8");
  const colon = pair.indexOf(":");
  return colon < 0 ? null : pair.slice(colon + 1);
}

/**
 * The headers the door checks, with the token where a client that sends no bearer token can put it: an
 * ORS client's `X-API-Key`, and HTTP Basic credentials whose password is the token. The official OpenEnv
 * client sends no headers of its own, but its WebSocket library sends the user and password of the URL
 * (`ws://gitgood:TOKEN@127.0.0.1:8000`) as Basic credentials: the token goes in a header, never in a
 * request line that logs keep.
 */
function doorHeaders(req: IncomingMessage): IncomingHttpHeaders {
  const basic = basicToken(req.headers.authorization);
  if (basic !== null) return { ...req.headers, authorization: `Bearer ${basic}` };
  const key = req.headers["x-api-key"];
  if (req.headers.authorization !== undefined || typeof key !== "string") return req.headers;
  return { ...req.headers, authorization: `Bearer ${key}` };
}

/**
 * Listens on HOST:PORT and hands every request the door lets through to `routes`: the Origin check, the
 * Host check on loopback (against DNS rebinding), and the bearer token, as `gitgood mcp --http` checks
 * them. A refused request is answered 401/403 with `{"detail": why}` before its body is read; a refused
 * WebSocket handshake the same way, before the upgrade.
 */
export async function listen(opts: DoorOptions, routes: Routes): Promise<Listening> {
  requireTokenBeyondLoopback(opts.host, opts.token, "--token (or GITGOOD_SERVE_TOKEN)");
  const policy: AccessPolicy = { token: opts.token, allowedOrigins: opts.allowedOrigins, loopback: isLoopbackHost(opts.host) };
  const server = http.createServer((req, res) => {
    const denied = checkAccess(doorHeaders(req), policy);
    if (denied) {
      sendJson(res, denied.status, { detail: denied.message }, denied.headers);
      return;
    }
    routes.request(req, res).catch((err: unknown) => {
      opts.log(`request failed: ${toGitGoodError(err).message}`);
      sendJson(res, 500, { detail: "internal error" });
    });
  });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    const denied = checkAccess(doorHeaders(req), policy);
    const refuse = (status: number, detail: string, headers: Record<string, string> = {}): void => {
      const body = JSON.stringify({ detail });
      const lines = [`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ""}`, "Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`, "Connection: close"];
      for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
      socket.end(`${lines.join("\r\n")}\r\n\r\n${body}`);
    };
    if (denied) refuse(denied.status, denied.message, denied.headers);
    else if (!routes.upgrade) refuse(404, "this server takes no WebSocket connections");
    else routes.upgrade(req, socket, head);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) => reject(new GitGoodError("LISTEN_FAILED", `cannot listen on ${opts.host}:${opts.port}: ${err.code ?? err.message}`)));
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Writes the upgrade refusal of a handshake that is not one (400). */
export function refuseHandshake(socket: Duplex, why: string): void {
  const body = JSON.stringify({ detail: why });
  socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
