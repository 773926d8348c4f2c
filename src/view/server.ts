import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { GitGoodError } from "../errors.js";
import { checkAccess, isLoopbackHost } from "../mcp/guard.js";
import { viewerPage } from "./page.js";
import type { RunSet } from "./data.js";

/** What the viewer serves, and where. */
interface ViewServeOptions {
  /** The runs the viewer shows. */
  runs: RunSet;
  /** The address to listen on; on loopback the Host header is checked too. */
  host: string;
  /** 0: a free port the system picks. */
  port: number;
  /** The secret every request carries (in the page's URL, then as a bearer token); made at random when not given. */
  token?: string;
}

export interface ViewHandle {
  /** The address to open, token included. */
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, {
    "Content-Type": type,
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    ...extra,
  });
  res.end(body);
}

const json = (res: ServerResponse, status: number, value: unknown): void => send(res, status, "application/json; charset=utf-8", JSON.stringify(value));

/**
 * Serves the read-only viewer over some run directories: the page at `/?token=…`, the index of every
 * attempt at `/api/index`, one attempt at `/api/attempt?run=N&key=K`. Every request must carry the
 * token (the page's own URL in its query, the page's requests as a bearer token), from a local origin,
 * and on loopback with a loopback Host (against DNS rebinding), as the MCP server checks.
 */
export async function serveViewer(opts: ViewServeOptions): Promise<ViewHandle> {
  const token = opts.token ?? randomBytes(24).toString("base64url");
  const loopback = isLoopbackHost(opts.host);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const given = url.searchParams.get("token");
    const headers = given !== null && req.headers.authorization === undefined ? { ...req.headers, authorization: `Bearer ${given}` } : req.headers;
    const denial = checkAccess(headers, { token, allowedOrigins: [], loopback });
    if (denial) return send(res, denial.status, "text/plain; charset=utf-8", `${denial.message}\n`, denial.headers);
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "text/plain; charset=utf-8", "the viewer is read-only\n", { Allow: "GET, HEAD" });
    try {
      if (url.pathname === "/") {
        const nonce = randomBytes(16).toString("base64");
        return send(res, 200, "text/html; charset=utf-8", viewerPage(nonce), {
          "Content-Security-Policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
        });
      }
      if (url.pathname === "/api/index") return json(res, 200, await opts.runs.index());
      if (url.pathname === "/api/attempt") {
        const run = Number(url.searchParams.get("run"));
        const key = url.searchParams.get("key") ?? "";
        const view = Number.isInteger(run) ? await opts.runs.attempt(run, key) : null;
        return view ? json(res, 200, view) : json(res, 404, { error: `no attempt ${key} in run ${url.searchParams.get("run") ?? ""}` });
      }
      if (url.pathname === "/api/live") {
        const run = Number(url.searchParams.get("run"));
        const key = url.searchParams.get("key") ?? "";
        const view = Number.isInteger(run) ? await opts.runs.live(run, key) : null;
        return view ? json(res, 200, view) : json(res, 404, { error: `no running attempt ${key} in run ${url.searchParams.get("run") ?? ""}` });
      }
      return send(res, 404, "text/plain; charset=utf-8", "not found\n");
    } catch (err) {
      // A run directory that became unreadable while served: said, not a crash of the server.
      return json(res, 500, { error: err instanceof GitGoodError ? err.message : "the run could not be read" });
    }
  };
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(new GitGoodError("LISTEN_FAILED", `cannot listen on ${opts.host}:${opts.port}: ${err.code ?? err.message}`)),
    );
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shown = opts.host.includes(":") && !opts.host.startsWith("[") ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shown}:${port}/?token=${encodeURIComponent(token)}`,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
