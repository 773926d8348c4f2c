import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import type { AgentCard, AgentSkill } from "@a2a-js/sdk";
import { DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from "@a2a-js/sdk/server";
import { UserBuilder, agentCardHandler, jsonRpcHandler } from "@a2a-js/sdk/server/express";
import express, { type NextFunction, type Request, type Response } from "express";
import { GitGoodError } from "../errors.js";
import { checkAccess, type AccessPolicy } from "../mcp/guard.js";
import type { McpToolHost } from "../mcp/tool-host.js";
import { errnoCode } from "../util/errno.js";

const pkg = createRequire(import.meta.url)("../../package.json") as { version: string };

/** The path the agent card is served at, for discovery (public, also when the server requires a token). */
export const AGENT_CARD_PATH = "/.well-known/agent-card.json";
/** Requests may carry whole problem statements and patches: far above express's default of 100 KB. */
const BODY_LIMIT = "64mb";

/** What `agentCard` builds a card from: the agent's name and purpose, where it is reached, and its skills. */
export interface CardInfo {
  name: string;
  description: string;
  /** Where clients reach the agent (`--card-url`), with or without a trailing slash. */
  url: string;
  skills: { id: string; name: string; description: string; tags: string[]; examples?: string[] }[];
  /** Says that every request but the card's must carry `Authorization: Bearer <token>` (the token itself is never in the card). */
  bearer?: boolean;
}

const BEARER = "bearer";

/**
 * The agent card: one JSON-RPC interface, announced for A2A v0.3 (what AgentBeats clients speak; a
 * client without an A2A-Version header gets the v0.3 card) and for v1.0 at the same URL. Streaming on.
 * With `bearer`, an HTTP bearer security scheme that every call requires.
 */
export function agentCard(info: CardInfo): AgentCard {
  const url = info.url.replace(/\/+$/, "") + "/";
  const skills: AgentSkill[] = info.skills.map((s) => ({
    id: s.id,
    name: s.name,
    description: s.description,
    tags: s.tags,
    examples: s.examples ?? [],
    inputModes: ["text/plain", "application/json"],
    outputModes: ["text/plain", "application/json"],
    securityRequirements: [],
  }));
  return {
    name: info.name,
    description: info.description,
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", protocolVersion: "0.3", tenant: "" },
      { url, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" },
    ],
    provider: undefined,
    version: pkg.version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: info.bearer
      ? { [BEARER]: { scheme: { $case: "httpAuthSecurityScheme", value: { description: "the token the agent was started with (--token)", scheme: "Bearer", bearerFormat: "" } } } }
      : {},
    securityRequirements: info.bearer ? [{ schemes: { [BEARER]: { list: [] } } }] : [],
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills,
    signatures: [],
  };
}

/** What an A2A server serves, and where. */
export interface A2aServeOptions {
  /** The address to listen on; a non-loopback one needs a token in `access`. */
  host: string;
  /** 0: a free port the system picks. */
  port: number;
  /** The agent card served at `AGENT_CARD_PATH` (its URL is rewritten to the real port). */
  card: AgentCard;
  /** What runs each task: the green (assessor) or the participant executor. */
  executor: AgentExecutor;
  /** Per-task MCP endpoints served next to the agent (the green's GitGoodBench tools). */
  toolHost?: McpToolHost;
  /**
   * Who may talk to the agent (the checks of `gitgood mcp`): Host and Origin on every request, and the
   * bearer token, when one is set, on every request but the agent card's (public for discovery: it names
   * the agent, its skills and its URL, never a secret) and the task endpoints' (which carry tokens of
   * their own).
   */
  access: AccessPolicy;
}

/** A running A2A server, as `serveA2a` returns it. */
export interface A2aHandle {
  /** Where the server listens (its real port, for `--port 0`). */
  url: string;
  /** Closes every task endpoint and connection and stops listening; resolves once the server is closed. */
  close(): Promise<void>;
}

/**
 * Serves an A2A agent over JSON-RPC (v1.0, and v0.3 through the SDK's compatibility layer) with its
 * card at /.well-known/agent-card.json, request bodies up to BODY_LIMIT, and the tool host's task
 * endpoints when there is one.
 */
export async function serveA2a(opts: A2aServeOptions): Promise<A2aHandle> {
  const handler = new DefaultRequestHandler(opts.card, new InMemoryTaskStore(), opts.executor);
  const app = express();
  const tools = opts.toolHost;
  const access = opts.access;
  app.use((req: Request, res: Response, next: NextFunction) => {
    const open = req.path === AGENT_CARD_PATH || tools?.handles(req) === true;
    const denied = checkAccess(req.headers, open ? { ...access, token: undefined } : access);
    if (!denied) {
      next();
      return;
    }
    res.status(denied.status).set(denied.headers ?? {}).json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: denied.message } });
  });
  if (tools) {
    // Before any body parser: the MCP transport reads the request itself.
    app.use((req: Request, res: Response, next: NextFunction) => {
      if (!tools.handles(req)) {
        next();
        return;
      }
      tools.handle(req, res).catch(next);
    });
  }
  app.use(express.json({ limit: BODY_LIMIT }));
  app.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (!err) {
      next();
      return;
    }
    const e = err as { type?: string; status?: number; message?: string };
    const code = e.type === "entity.too.large" ? -32600 : -32700;
    res.status(e.status ?? 400).json({ jsonrpc: "2.0", id: null, error: { code, message: e.message ?? "the request body cannot be read" } });
  });
  const legacyCompat = { enabled: true };
  app.use(AGENT_CARD_PATH, agentCardHandler({ agentCardProvider: handler, legacyCompat }));
  app.use("/", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(opts.port, opts.host, (err?: Error) => {
      if (err) reject(new GitGoodError("LISTEN_FAILED", `cannot listen on ${opts.host}:${opts.port}: ${errnoCode(err) ?? err.message}`));
      else resolve(s);
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}`,
    async close() {
      await tools?.closeAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
