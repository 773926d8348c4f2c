import { randomBytes, randomUUID } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { HostedTools, ToolHost } from "../agents/a2a.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { checkAccess, isLoopbackHost } from "./guard.js";
import { readInitialize, reply } from "./http.js";
import { createMcpServer } from "./server.js";
import { Workbench } from "./workbench.js";

/** Task endpoints live at `/tasks/<id>/mcp`. */
const TASK_PATH = /^\/tasks\/([A-Za-z0-9-]{1,64})\/mcp\/?$/;

interface McpSession {
  transport: StreamableHTTPServerTransport;
  server: Server;
}

/** One attempt's endpoint: its token, the tool socket its workbenches forward to, and the MCP sessions on it. */
interface Entry {
  token: string;
  socket: string;
  sessions: Map<string, McpSession>;
  connected: boolean;
}

/**
 * Serves the tools of attempts to A2A participants over MCP (Streamable HTTP): each attempt gets a URL
 * of its own (`BASE/tasks/<id>/mcp`) and a bearer token, and every MCP session on it is a workbench
 * attached to the attempt's tool broker, which answers and records every call. The handler can be
 * mounted in another HTTP server (the green agent's), or listen on its own (`ToolHostServer.listen`).
 */
export class McpToolHost implements ToolHost {
  private readonly entries = new Map<string, Entry>();
  /** Where participants reach this host (no trailing slash), e.g. the green agent's public URL; set once it is known. */
  baseUrl = "";

  /** @param loopback bound to loopback only: the Host header must then name a loopback host */
  constructor(
    private readonly loopback: boolean,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /** Whether a request is for this host (so a server mounting it passes the rest on). */
  handles(req: IncomingMessage): boolean {
    return TASK_PATH.test(new URL(req.url ?? "/", "http://localhost").pathname);
  }

  /** Serves the tools behind the broker socket `socket` at a new path with its own token, until it is closed. */
  async open(socket: string): Promise<HostedTools> {
    const id = randomUUID();
    const entry: Entry = { token: randomBytes(24).toString("base64url"), socket, sessions: new Map(), connected: false };
    this.entries.set(id, entry);
    return {
      url: `${this.baseUrl}/tasks/${id}/mcp`,
      token: entry.token,
      connected: () => entry.connected,
      close: async () => {
        this.entries.delete(id);
        await Promise.all([...entry.sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
      },
    };
  }

  /** Answers one request for a task endpoint (404 for an unknown or finished task). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const id = TASK_PATH.exec(new URL(req.url ?? "/", "http://localhost").pathname)?.[1];
    const entry = id === undefined ? undefined : this.entries.get(id);
    if (!entry) {
      reply(res, 404, "no such task: its MCP server is closed, or the URL is wrong");
      return;
    }
    const denied = checkAccess(req.headers, { token: entry.token, allowedOrigins: [], loopback: this.loopback });
    if (denied) {
      reply(res, denied.status, denied.message, denied.headers);
      return;
    }
    const header = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = entry.sessions.get(sessionId);
      if (!session) {
        reply(res, 404, "unknown or expired session: initialize a new one");
        return;
      }
      await session.transport.handleRequest(req, res);
      return;
    }
    if (req.method !== "POST") {
      reply(res, 400, "no session: the first request must be an initialize request (POST)");
      return;
    }
    const body = await readInitialize(req, res);
    if (body === null) return;
    let bench: Workbench;
    try {
      bench = await Workbench.create({ source: { mode: "attached", socket: entry.socket } });
    } catch (err) {
      reply(res, 500, `the task's tools are not available: ${toGitGoodError(err).message}`);
      return;
    }
    const server = createMcpServer(bench, "http");
    const session: McpSession = {
      server,
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          entry.sessions.set(sid, session);
          entry.connected = true;
          this.log(`task ${id}: MCP session ${sid} opened`);
        },
      }),
    };
    server.onclose = () => {
      const sid = session.transport.sessionId;
      if (sid) entry.sessions.delete(sid);
      void bench.close().catch(() => undefined);
    };
    await server.connect(session.transport);
    await session.transport.handleRequest(req, res, body);
  }

  /** Closes every endpoint still open. */
  async closeAll(): Promise<void> {
    const sessions = [...this.entries.values()].flatMap((e) => [...e.sessions.values()]);
    this.entries.clear();
    await Promise.all(sessions.map((s) => s.transport.close().catch(() => undefined)));
  }
}

/** A tool host on an HTTP server of its own (for `gitgood run --agent a2a`). */
export interface ToolHostServer {
  host: McpToolHost;
  close(): Promise<void>;
}

/** Starts a tool host listening on HOST:PORT (0: any free port); participants reach it at `publicUrl` when given. */
export async function listenToolHost(host: string, port: number, publicUrl?: string): Promise<ToolHostServer> {
  let toolHost: McpToolHost | null = null;
  const server = http.createServer((req, res) => {
    if (!toolHost?.handles(req)) {
      reply(res, 404, "not found: task endpoints are /tasks/<id>/mcp");
      return;
    }
    toolHost.handle(req, res).catch(() => reply(res, 500, "internal error"));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(new GitGoodError("LISTEN_FAILED", `cannot listen on ${host}:${port}: ${err.code ?? err.message}`)),
    );
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const made = new McpToolHost(isLoopbackHost(host));
  made.baseUrl = (publicUrl ?? `http://${shown}:${address.port}`).replace(/\/+$/, "");
  toolHost = made;
  return {
    host: made,
    async close() {
      await made.closeAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
