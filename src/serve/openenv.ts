import { createRequire } from "node:module";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { callResult } from "../mcp/descriptors.js";
import { FINISH } from "../mcp/bench-tools.js";
import { scenarios } from "../scenarios/registry.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import type { ClientInfo } from "../mcp/attempt.js";
import type { Episode, EpisodeChoice, StepOutcome } from "./episode.js";
import { CLOSE_GOING_AWAY, handshakeProblem, WebSocketConnection } from "./websocket.js";
import { readJson, refuseHandshake, sendJson, type Routes } from "./http.js";
import { endFacts, shapedRewardsSchema, taskText, toolList } from "./observation.js";
import type { EpisodePool } from "./pool.js";

// OpenEnv (github.com/meta-pytorch/OpenEnv, package openenv 0.2.3, commit 685de411 of 2026-05-01):
// src/openenv/core/env_server/{http_server,types,mcp_types,serialization}.py. An episode is one
// environment instance; its actions are the MCP actions `list_tools` and `call_tool`.

const pkg = createRequire(import.meta.url)("../../package.json") as { version: string };

/** What `ResetRequest` carries (extra fields allowed): OpenEnv's seed and episode_id, and gitgood's sample_id and scenario. */
function resetChoice(body: Record<string, unknown>): { choice: EpisodeChoice; id?: string } {
  const problems: string[] = [];
  const { seed, episode_id: id, sample_id: sampleId, scenario } = body;
  if (seed !== undefined && seed !== null && !(Number.isInteger(seed) && (seed as number) >= 0)) problems.push("seed must be an integer >= 0");
  if (id !== undefined && id !== null && !(typeof id === "string" && id.length > 0 && id.length <= 255)) problems.push("episode_id must be a string of 1 to 255 characters");
  if (sampleId !== undefined && typeof sampleId !== "string") problems.push("sample_id must be a string");
  if (scenario !== undefined && typeof scenario !== "string") problems.push("scenario must be a string");
  if (problems.length > 0) throw new GitGoodError("BAD_ARGUMENTS", problems.join("; "));
  return {
    choice: { seed: (seed ?? undefined) as number | undefined, sampleId: sampleId as string | undefined, scenario: scenario as string | undefined },
    id: (id ?? undefined) as string | undefined,
  };
}

type Action = { type: "list_tools" } | { type: "call_tool"; tool_name: string; arguments: Record<string, unknown> };

/** Validates an action as `deserialize_action` does for the MCP actions (extra fields forbidden, `metadata` allowed). */
function parseAction(data: unknown): Action {
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw new GitGoodError("BAD_ARGUMENTS", "an action is a JSON object");
  const a = data as Record<string, unknown>;
  const allowed = a.type === "call_tool" ? ["type", "tool_name", "arguments", "metadata"] : ["type", "metadata"];
  const extra = Object.keys(a).filter((k) => !allowed.includes(k));
  if (a.type !== "list_tools" && a.type !== "call_tool") throw new GitGoodError("BAD_ARGUMENTS", "an action's type is list_tools or call_tool");
  if (extra.length > 0) throw new GitGoodError("BAD_ARGUMENTS", `unknown action field(s): ${extra.join(", ")}`);
  if (a.metadata !== undefined && (typeof a.metadata !== "object" || a.metadata === null || Array.isArray(a.metadata))) {
    throw new GitGoodError("BAD_ARGUMENTS", "metadata is an object");
  }
  if (a.type === "list_tools") return { type: "list_tools" };
  if (typeof a.tool_name !== "string" || a.tool_name === "") throw new GitGoodError("BAD_ARGUMENTS", "call_tool needs a tool_name");
  const args = a.arguments ?? {};
  if (typeof args !== "object" || args === null || Array.isArray(args)) throw new GitGoodError("BAD_ARGUMENTS", "arguments is an object");
  return { type: "call_tool", tool_name: a.tool_name, arguments: args as Record<string, unknown> };
}

/** The response to `reset`: the task, the tools, and which episode this is (`ResetResponse`); done at once when set-up outlasted the time limit. */
function resetResponse(episode: Episode): Record<string, unknown> {
  const ended = episode.last;
  return {
    observation: {
      episode_id: episode.id,
      sample_id: episode.sample.id,
      scenario: episode.scenarioName,
      task: taskText(episode),
      task_data: episode.context.data,
      tools: toolList(episode),
      ...(ended ? { error: toolError(ended.result.error?.code, ended.result.output), ...endFacts(ended) } : {}),
    },
    reward: ended ? ended.reward : null,
    done: episode.done,
  };
}

/** OpenEnv's ToolError categories for failures that are not the tool's own answer. */
function toolError(code: string | undefined, message: string): { error_type: string; message: string } | null {
  if (code === "UNKNOWN_TOOL") return { error_type: "tool_not_found", message };
  if (code === "BAD_ARGUMENTS") return { error_type: "invalid_args", message };
  if (code === "TIMEOUT") return { error_type: "timeout", message };
  return null;
}

/** The response to `step` (`StepResponse`): a CallToolObservation or ListToolsObservation, the reward and done. */
async function stepResponse(episode: Episode, action: Action): Promise<Record<string, unknown>> {
  if (action.type === "list_tools") {
    return { observation: { tools: toolList(episode) }, reward: null, done: episode.done };
  }
  const outcome: StepOutcome = await episode.step(action.tool_name, action.arguments);
  const err = outcome.result.ok ? null : toolError(outcome.result.error?.code, outcome.result.error?.message ?? outcome.result.output);
  const result = err ? null : callResult(outcome.result);
  return {
    observation: {
      tool_name: action.tool_name,
      result: result ? { content: result.content, structured_content: null, is_error: result.isError === true } : null,
      error: err,
      ...endFacts(outcome),
    },
    reward: outcome.reward,
    done: outcome.done,
  };
}

function stateOf(episode: Episode): Record<string, unknown> {
  return {
    episode_id: episode.id,
    step_count: episode.stepCount,
    sample_id: episode.sample.id,
    scenario: episode.scenarioName,
    done: episode.done,
  };
}

/** Every scenario tool name (and finish_scenario): the values `call_tool`'s tool_name may take. */
function allToolNames(): string[] {
  const names = new Set<string>();
  for (const d of scenarios()) for (const t of [...d.tools.tools, ...(d.optionalTools?.tools ?? [])]) names.add(t.name);
  names.add(FINISH);
  return [...names];
}

/** `GET /schema`: the JSON schemas of the actions, observations and state (`SchemaResponse`). */
function openEnvSchema(): Record<string, unknown> {
  const metadata = { type: "object", description: "Additional metadata for the action" };
  return {
    action: {
      title: "GitgoodAction",
      description: "An MCP action: list the episode's tools, or call one (the tool names and input schemas of gitgood mcp).",
      oneOf: [
        { type: "object", title: "ListToolsAction", properties: { type: { const: "list_tools" }, metadata }, required: ["type"], additionalProperties: false },
        {
          type: "object",
          title: "CallToolAction",
          properties: { type: { const: "call_tool" }, tool_name: { type: "string", enum: allToolNames() }, arguments: { type: "object" }, metadata },
          required: ["type", "tool_name"],
          additionalProperties: false,
        },
      ],
    },
    observation: {
      title: "GitgoodObservation",
      type: "object",
      description:
        "After reset: the task and tools. After call_tool: the tool's result (MCP CallToolResult) or error. At the end: the record's key, " +
        "verdict and scores (the family's evaluation, as gitgood run records it). The reward is terminal: 1 solved, 0 not, null when no " +
        "scorer decides (IR/ICC without a judge); the scores hold the family's partial measures and `rewards` the shaped partial rewards derived from them.",
      properties: {
        episode_id: { type: "string" },
        sample_id: { type: "string" },
        scenario: { type: "string" },
        task: { type: "string" },
        task_data: { type: "object" },
        tools: { type: "array", items: { type: "object" } },
        tool_name: { type: "string" },
        result: { type: ["object", "null"] },
        error: { type: ["object", "null"], properties: { error_type: { type: "string" }, message: { type: "string" } } },
        key: { type: "string" },
        verdict: { enum: ["solved", "unsolved", "unjudged", "error"] },
        scores: { type: "object" },
        rewards: shapedRewardsSchema(),
      },
    },
    state: {
      title: "GitgoodState",
      type: "object",
      properties: {
        episode_id: { type: ["string", "null"] },
        step_count: { type: "integer", minimum: 0 },
        sample_id: { type: "string" },
        scenario: { type: "string" },
        done: { type: "boolean" },
      },
    },
  };
}

/** FastAPI's answer to a request that does not validate. */
function unprocessable(res: ServerResponse, message: string): void {
  sendJson(res, 422, { detail: [{ type: "value_error", loc: ["body"], msg: message }] });
}

function episodeIdOf(body: Record<string, unknown>): string | null {
  return typeof body.episode_id === "string" ? body.episode_id : null;
}

/**
 * One WebSocket session (`/ws`): its own episode, replaced on each reset, ended when the connection
 * closes. Messages and answers as OpenEnv's WSResetMessage, WSStepMessage, WSStateMessage,
 * WSCloseMessage and WSMCPMessage, and WSObservationResponse, WSStateResponse, WSErrorResponse.
 */
class WsSession {
  private episode: Episode | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  /** Serves the connection until it closes; `gone` is told then. */
  static serve(ws: WebSocketConnection, pool: EpisodePool, gone: () => void): void {
    const session = new WsSession(ws, pool);
    ws.onMessage = (text) => {
      session.queue = session.queue.then(() => session.handle(text)).catch(() => undefined);
    };
    ws.onClose = () => {
      gone();
      session.queue = session.queue.then(() => session.endEpisode("the client closed the WebSocket"));
    };
  }

  private constructor(
    private readonly ws: WebSocketConnection,
    private readonly pool: EpisodePool,
  ) {}

  private async endEpisode(how: string): Promise<void> {
    if (this.episode) await this.pool.close(this.episode.id, how);
    this.episode = null;
  }

  private error(code: string, message: string): void {
    this.ws.send(JSON.stringify({ type: "error", data: { message, code } }));
  }

  private live(): Episode {
    if (!this.episode) throw new GitGoodError("NO_SCENARIO", "no episode: send a reset message first");
    this.pool.touch(this.episode);
    return this.episode;
  }

  private async handle(text: string): Promise<void> {
    let msg: Record<string, unknown>;
    try {
      const parsed = JSON.parse(text) as unknown;
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
      msg = parsed as Record<string, unknown>;
    } catch (err) {
      this.error("INVALID_JSON", `Invalid JSON: ${(err as Error).message}`);
      return;
    }
    const allowed: Record<string, string[]> = { reset: ["type", "data"], step: ["type", "data"], state: ["type"], close: ["type"], mcp: ["type", "data"] };
    const type = typeof msg.type === "string" ? msg.type : "";
    const fields = allowed[type];
    if (!fields) {
      this.error("UNKNOWN_TYPE", `Unknown message type: ${type}`);
      return;
    }
    const extra = Object.keys(msg).filter((k) => !fields.includes(k));
    const data = msg.data ?? (type === "reset" ? {} : undefined);
    if (extra.length > 0 || ((type === "step" || type === "reset" || type === "mcp") && (typeof data !== "object" || data === null || Array.isArray(data)))) {
      this.error("VALIDATION_ERROR", extra.length > 0 ? `unknown message field(s): ${extra.join(", ")}` : `a ${type} message carries an object in data`);
      return;
    }
    try {
      switch (type) {
        case "reset": {
          const { choice, id } = resetChoice(data as Record<string, unknown>);
          await this.endEpisode("the client reset the environment");
          this.episode = await this.pool.open(choice, () => ({ name: "openenv-ws", version: "", transport: "http" }), id);
          this.ws.send(JSON.stringify({ type: "observation", data: resetResponse(this.episode) }));
          return;
        }
        case "step": {
          let action: Action;
          try {
            action = parseAction(data);
          } catch (err) {
            this.error("VALIDATION_ERROR", toGitGoodError(err).message);
            return;
          }
          this.ws.send(JSON.stringify({ type: "observation", data: await stepResponse(this.live(), action) }));
          return;
        }
        case "state":
          this.ws.send(JSON.stringify({ type: "state", data: this.episode ? stateOf(this.live()) : { episode_id: null, step_count: 0 } }));
          return;
        case "close":
          this.ws.close();
          return;
        default:
          this.ws.send(JSON.stringify({ type: "mcp", data: await this.mcp(data as Record<string, unknown>) }));
      }
    } catch (err) {
      const e = toGitGoodError(err);
      this.error(e.code === "CAPACITY_REACHED" ? "CAPACITY_REACHED" : "EXECUTION_ERROR", e.message);
    }
  }

  private mcp(rpc: Record<string, unknown>): Promise<Record<string, unknown>> {
    return mcpAnswer(rpc, () => (this.episode ? this.live() : null));
  }
}

type Rpc = Record<string, unknown>;

function rpcError(id: unknown, code: number, message: string): Rpc {
  return { jsonrpc: "2.0", id: typeof id === "string" || typeof id === "number" ? id : null, error: { code, message } };
}

/** A JSON-RPC request on an episode (`tools/list`, `tools/call`), answered as OpenEnv's MCP handler answers it. */
async function mcpAnswer(rpc: Rpc, episodeOf: () => Episode | null): Promise<Rpc> {
  const id = typeof rpc.id === "string" || typeof rpc.id === "number" ? rpc.id : null;
  if (rpc.jsonrpc !== "2.0" || typeof rpc.method !== "string") return rpcError(id, -32600, "Invalid Request");
  const params = (rpc.params ?? {}) as Rpc;
  if (typeof params !== "object" || params === null || Array.isArray(params)) return rpcError(id, -32602, "Params must be an object");
  const episode = episodeOf();
  if (!episode) return rpcError(id, -32603, "no episode: send a reset message first");
  if (rpc.method === "tools/list") return { jsonrpc: "2.0", id, result: { tools: toolList(episode) } };
  if (rpc.method !== "tools/call") return rpcError(id, -32601, `Method not found: ${rpc.method}`);
  if (typeof params.name !== "string" || params.name === "") return rpcError(id, -32602, "Invalid params - 'name' is required");
  const outcome = await episode.step(params.name, params.arguments ?? {});
  return { jsonrpc: "2.0", id, result: callResult(outcome.result) };
}

/**
 * `POST /mcp`: OpenEnv's HTTP MCP endpoint with its session methods. `openenv/session/create` starts an
 * episode (the `sample_id`, `scenario` and `seed` params choose it, as a reset's fields do) and answers its
 * id as `session_id`; `tools/list` and `tools/call` name it with `session_id`, and `openenv/session/close` ends
 * it. A Git task keeps state across calls, so a call without a session (OpenEnv's throw-away environment) is
 * refused.
 */
async function mcpHttp(pool: EpisodePool, rpc: Rpc, client: () => ClientInfo): Promise<Rpc> {
  const params = (rpc.params ?? {}) as Rpc;
  if (rpc.jsonrpc !== "2.0" || typeof rpc.method !== "string") return rpcError(rpc.id, -32600, "Invalid Request");
  if (typeof params !== "object" || params === null || Array.isArray(params)) return rpcError(rpc.id, -32602, "Params must be an object");
  const sessionId = typeof params.session_id === "string" && params.session_id !== "" ? params.session_id : null;
  if (rpc.method === "openenv/session/create") {
    try {
      const { choice } = resetChoice({ seed: params.seed, sample_id: params.sample_id, scenario: params.scenario });
      const episode = await pool.open(choice, client);
      return { jsonrpc: "2.0", id: rpc.id ?? null, result: { session_id: episode.id } };
    } catch (err) {
      return rpcError(rpc.id, -32000, toGitGoodError(err).message);
    }
  }
  if (rpc.method === "openenv/session/close") {
    if (!sessionId) return rpcError(rpc.id, -32602, "Invalid params - 'session_id' is required");
    if (!pool.get(sessionId)) return rpcError(rpc.id, -32602, `Unknown session_id: ${sessionId}`);
    await pool.close(sessionId, "the client closed the MCP session");
    return { jsonrpc: "2.0", id: rpc.id ?? null, result: { session_id: sessionId, closed: true } };
  }
  if (!sessionId) return rpcError(rpc.id, -32602, "Invalid params - 'session_id' is required: create one with openenv/session/create (a Git task keeps state across calls)");
  const episode = pool.get(sessionId);
  if (!episode) return rpcError(rpc.id, -32602, `Unknown session_id: ${sessionId}`);
  const { session_id: _named, ...rest } = params;
  return mcpAnswer({ ...rpc, params: rest }, () => episode);
}

/**
 * The OpenEnv routes over an episode pool: `POST /reset`, `POST /step`, `GET /state` (HTTP: the episode
 * named by `episode_id`, an extra field OpenEnv's requests allow), `GET /schema`, `GET /health`,
 * `GET /metadata` and the WebSocket `/ws`, each connection a session of its own.
 */
export function openEnvRoutes(pool: EpisodePool): Routes & { closeAll(): void } {
  const sockets = new Set<WebSocketConnection>();
  const client = () => ({ name: "openenv-http", version: "", transport: "http" as const });
  const episodeFor = (res: ServerResponse, id: string | null): Episode | null => {
    if (id === null) {
      unprocessable(res, "episode_id is required: the episode_id the reset response gave (this server keeps one environment per episode)");
      return null;
    }
    const episode = pool.get(id);
    if (!episode) sendJson(res, 404, { detail: `no live episode ${id}: reset to start one` });
    return episode;
  };

  return {
    async request(req: IncomingMessage, res: ServerResponse) {
      const url = new URL(req.url ?? "/", "http://localhost");
      const route = `${req.method ?? ""} ${url.pathname}`;
      switch (route) {
        case "GET /health":
          sendJson(res, 200, { status: "healthy" });
          return;
        case "GET /metadata":
          sendJson(res, 200, {
            name: "gitgood",
            description: "Git tasks (merge conflicts, interactive rebase, iterative commits, and every registered family) in answer-free sandboxes, scored as gitgood run scores them",
            readme_content: null,
            version: pkg.version,
            author: null,
            documentation_url: null,
          });
          return;
        case "GET /schema":
          sendJson(res, 200, openEnvSchema());
          return;
        case "GET /state": {
          const episode = episodeFor(res, url.searchParams.get("episode_id"));
          if (episode) sendJson(res, 200, stateOf(episode));
          return;
        }
        case "POST /mcp": {
          let rpc: unknown;
          try {
            rpc = await readJson(req);
          } catch {
            sendJson(res, 200, rpcError(null, -32700, "Parse error"));
            return;
          }
          if (typeof rpc !== "object" || rpc === null || Array.isArray(rpc)) {
            sendJson(res, 200, rpcError(null, -32600, "Invalid Request"));
            return;
          }
          sendJson(res, 200, await mcpHttp(pool, rpc as Rpc, client));
          return;
        }
        case "POST /reset":
        case "POST /step":
          break;
        default:
          sendJson(res, 404, { detail: "Not Found" });
          return;
      }
      let body: Record<string, unknown>;
      try {
        const parsed = await readJson(req);
        if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new GitGoodError("BAD_ARGUMENTS", "the body is a JSON object");
        body = parsed as Record<string, unknown>;
      } catch (err) {
        unprocessable(res, toGitGoodError(err).message);
        return;
      }
      if (route === "POST /reset") {
        let picked: ReturnType<typeof resetChoice>;
        try {
          picked = resetChoice(body);
        } catch (err) {
          unprocessable(res, toGitGoodError(err).message);
          return;
        }
        try {
          const episode = await pool.open(picked.choice, client, picked.id);
          sendJson(res, 200, resetResponse(episode));
        } catch (err) {
          const e = toGitGoodError(err);
          const status = e.code === "CAPACITY_REACHED" ? 503 : e.code === "EPISODE_EXISTS" ? 409 : e.code === "UNKNOWN_SAMPLE" || e.code === "BAD_OPTION" ? 422 : 500;
          sendJson(res, status, { detail: e.message, code: e.code });
        }
        return;
      }
      let action: Action;
      try {
        action = parseAction(body.action);
        if (body.timeout_s !== undefined && body.timeout_s !== null && !(typeof body.timeout_s === "number" && body.timeout_s > 0)) {
          throw new GitGoodError("BAD_ARGUMENTS", "timeout_s must be a number > 0");
        }
      } catch (err) {
        unprocessable(res, toGitGoodError(err).message);
        return;
      }
      const episode = episodeFor(res, episodeIdOf(body));
      if (episode) sendJson(res, 200, await stepResponse(episode, action));
    },
    upgrade(req, socket: Duplex, head) {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (url.pathname !== "/ws") {
        refuseHandshake(socket, "the WebSocket endpoint is /ws");
        return;
      }
      const problem = handshakeProblem(req);
      if (problem) {
        refuseHandshake(socket, problem);
        return;
      }
      const ws = WebSocketConnection.accept(req, socket, head);
      sockets.add(ws);
      WsSession.serve(ws, pool, () => sockets.delete(ws));
    },
    closeAll() {
      for (const ws of sockets) ws.close(CLOSE_GOING_AWAY, "the server is stopping");
    },
  };
}
