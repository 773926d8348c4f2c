import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { FINISH, finishScenario } from "../mcp/bench-tools.js";
import { scenarios, scenariosFor } from "../scenarios/registry.js";
import { parametersSchema } from "../tools/schema.js";
import type { Tool } from "../tools/tool.js";
import type { Episode } from "./episode.js";
import { readJson, sendJson, type Routes } from "./http.js";
import { endFacts, taskText } from "./observation.js";
import type { EpisodePool } from "./pool.js";

// The Open Reward Standard as its reference implementation serves it (github.com/openrewardstandard/
// python-sdk, ors-sdk 0.1.0, commit a3994084 of 2026-03-24): src/ors/{server,types,_reconnect}.py.
// One environment, `gitgood`; a session is named by the client's X-Session-ID header, and its task is
// one sample × scenario of the served split.

/** The environment's name in every path. */
const ORS_ENV = "gitgood";
/** A tool call's result is sent in SSE events of at most this many characters. */
const CHUNK_CHARS = 4096;
/** A finished call's result stays fetchable by its task_id this long (a client reconnecting). */
const LINGER_MS = 60_000;
/** An SSE comment keeps a long call's stream alive this often. */
const PING_MS = 10_000;

const ROOT_PATHS = new Set(["health", "ping", "list_environments", "create", "delete", "create_session", "delete_session"]);

/** A task of the split: one sample × scenario. */
interface TaskSpec {
  sample_id: string;
  scenario: string;
}

/** ToolSpec: a tool's name, description and input schema (the schema `gitgood mcp` lists). */
function toolSpec(tool: Tool<unknown>): { name: string; description: string; input_schema: Record<string, unknown> } {
  return { name: tool.name, description: tool.description, input_schema: parametersSchema(tool) };
}

/** Every scenario's tools and finish_scenario, each name once: the environment's tool list. */
function allTools(): Tool<unknown>[] {
  const byName = new Map<string, Tool<unknown>>();
  for (const d of scenarios()) for (const t of [...d.tools.tools, ...(d.optionalTools?.tools ?? [])] as Tool<unknown>[]) if (!byName.has(t.name)) byName.set(t.name, t);
  byName.set(FINISH, finishScenario);
  return [...byName.values()];
}

function splitType(name: string): "train" | "validation" | "test" {
  return name === "train" || name === "test" ? name : "validation";
}

/** A call in progress or finished: its result as sent (a RunToolOutput in JSON), or the error that stopped it. */
interface CallTask {
  done: Promise<void>;
  result: string | null;
  error: string | null;
}

/** One SSE event (data may not hold a newline: JSON from JSON.stringify holds none). */
function sse(res: ServerResponse, event: string, data: string): void {
  res.write(`event: ${event}\r\ndata: ${data}\r\n\r\n`);
}

function openStream(res: ServerResponse): void {
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", Connection: "keep-alive", "X-Accel-Buffering": "no" });
}

function sidOf(req: IncomingMessage): string {
  const h = req.headers["x-session-id"];
  const sid = (Array.isArray(h) ? h[0] : h)?.trim();
  if (!sid) throw new HttpError(400, "X-Session-ID header is required");
  return sid;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Reads a JSON object body whose fields are all among `fields` (ORS's models forbid extra fields). */
async function body(req: IncomingMessage, fields: readonly string[]): Promise<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = await readJson(req);
  } catch (err) {
    throw new HttpError(422, toGitGoodError(err).message);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new HttpError(422, "the body is a JSON object");
  const extra = Object.keys(parsed).filter((k) => !fields.includes(k));
  if (extra.length > 0) throw new HttpError(422, `unknown field(s): ${extra.join(", ")}`);
  return parsed as Record<string, unknown>;
}

/**
 * The ORS routes over an episode pool: `/health`, `/list_environments`, `/{env}/tools`, `/{env}/splits`,
 * `/{env}/tasks`, `/{env}/num_tasks`, `/{env}/task`, `/{env}/task_range`, `/create`, `/delete`,
 * `/ping`, `/create_session`, `/delete_session`, and per session `/{env}/task_tools`, `/{env}/prompt`
 * and `/{env}/call` (SSE: `task_id`, then `chunk`… `end` with the RunToolOutput, or `error`).
 */
export function orsRoutes(pool: EpisodePool): Routes & { closeAll(): void } {
  const split = pool.source.split;
  const tasks: TaskSpec[] = pool.source.samples.flatMap((s) => scenariosFor(s).map((d) => ({ sample_id: s.id, scenario: d.name })));
  /** Sessions by X-Session-ID: the episode being set up or live. */
  const sessions = new Map<string, Promise<Episode>>();
  const calls = new Map<string, CallTask>();
  const streams = new Set<ServerResponse>();
  const client = () => ({ name: "ors", version: "", transport: "http" as const });

  const checkSplit = (name: unknown): void => {
    if (name !== split) throw new HttpError(400, "Invalid split");
  };
  const taskAt = (index: unknown): TaskSpec => {
    const t = Number.isInteger(index) ? tasks[index as number] : undefined;
    if (!t) throw new HttpError(400, "Invalid index");
    return t;
  };
  const sessionEpisode = async (req: IncomingMessage): Promise<Episode> => {
    const sid = sidOf(req);
    const pending = sessions.get(sid);
    if (!pending) throw new HttpError(404, "Active environment not found");
    let episode: Episode;
    try {
      episode = await pending;
    } catch (err) {
      throw new HttpError(500, toGitGoodError(err).message);
    }
    if (!pool.get(episode.id)) throw new HttpError(410, "Session deleted");
    return episode;
  };
  const endSession = async (sid: string, how: string): Promise<void> => {
    const pending = sessions.get(sid);
    if (!pending) return;
    sessions.delete(sid);
    const episode = await pending.catch(() => null);
    if (episode) await pool.close(episode.id, how);
  };

  /** Runs a tool call as a task whose result outlives the request (ORS's reconnectable calls). */
  const startCall = (episode: Episode, name: string, input: Record<string, unknown>): string => {
    const id = randomUUID().replaceAll("-", "");
    const task: CallTask = { done: Promise.resolve(), result: null, error: null };
    task.done = (async () => {
      const known = episode.tools().some((o) => o.tool.name === name);
      if (!known) {
        task.result = JSON.stringify({ ok: false, error: `there is no tool '${name}' in this session; see /${ORS_ENV}/task_tools` });
        return;
      }
      const outcome = await episode.step(name, input);
      const r = outcome.result;
      const metadata = { is_error: !r.ok, ...(r.error ? { code: r.error.code } : {}), ...endFacts(outcome) };
      task.result = JSON.stringify({ ok: true, output: { blocks: [{ text: r.output, detail: null, type: "text" }], metadata, reward: outcome.reward, finished: outcome.done } });
    })().catch((err: unknown) => {
      task.error = toGitGoodError(err).message;
    });
    void task.done.then(() => setTimeout(() => calls.delete(id), LINGER_MS).unref());
    calls.set(id, task);
    return id;
  };

  const streamCall = async (req: IncomingMessage, res: ServerResponse, id: string): Promise<void> => {
    openStream(res);
    const task = calls.get(id);
    if (!task) {
      sse(res, "error", "unknown task_id");
      res.end();
      return;
    }
    streams.add(res);
    sse(res, "task_id", id);
    const ping = setInterval(() => res.write(": ping\r\n\r\n"), PING_MS);
    try {
      await task.done;
    } finally {
      clearInterval(ping);
      streams.delete(res);
    }
    if (task.error !== null || task.result === null) {
      sse(res, "error", task.error ?? "the call ended without a result");
    } else {
      for (let i = 0; i < task.result.length; i += CHUNK_CHARS) {
        sse(res, i + CHUNK_CHARS >= task.result.length ? "end" : "chunk", task.result.slice(i, i + CHUNK_CHARS));
      }
    }
    res.end();
  };

  const route = async (req: IncomingMessage, res: ServerResponse, method: string, parts: string[]): Promise<void> => {
    const [first = "", second] = parts;
    const key = `${method} ${second === undefined ? first : `{env}/${second}`}`;
    if (second !== undefined && first !== ORS_ENV) throw new HttpError(404, `unknown environment '${first}'`);
    switch (key) {
      case "GET health":
        return sendJson(res, 200, { status: "ok" });
      case "GET list_environments":
        return sendJson(res, 200, [ORS_ENV]);
      case "POST ping": {
        const sid = sidOf(req);
        if (!sessions.has(sid)) throw new HttpError(404, "Active environment not found");
        const episode = await sessions.get(sid)?.catch(() => null);
        if (episode) pool.get(episode.id);
        return sendJson(res, 200, { status: "ok" });
      }
      case "GET {env}/tools":
        return sendJson(res, 200, { tools: allTools().map(toolSpec) });
      case "GET {env}/splits":
        return sendJson(res, 200, [{ name: split, type: splitType(split) }]);
      case "POST {env}/tasks":
        checkSplit((await body(req, ["split"])).split);
        return sendJson(res, 200, { tasks, env_name: first });
      case "POST {env}/num_tasks":
        checkSplit((await body(req, ["split"])).split);
        return sendJson(res, 200, { num_tasks: tasks.length });
      case "POST {env}/task": {
        const b = await body(req, ["split", "index"]);
        checkSplit(b.split);
        return sendJson(res, 200, { task: taskAt(b.index) });
      }
      case "POST {env}/task_range": {
        const b = await body(req, ["split", "start", "stop"]);
        checkSplit(b.split);
        const start = b.start ?? undefined;
        const stop = b.stop ?? undefined;
        if ((start !== undefined && !Number.isInteger(start)) || (stop !== undefined && !Number.isInteger(stop))) throw new HttpError(400, "Invalid index range");
        return sendJson(res, 200, { tasks: tasks.slice(start as number | undefined, stop as number | undefined) });
      }
      case "POST create": {
        const sid = sidOf(req);
        const b = await body(req, ["env_name", "task_spec", "split", "index", "secrets"]);
        if (sessions.has(sid)) throw new HttpError(400, "Session already exists");
        if (b.env_name !== undefined && b.env_name !== null && String(b.env_name).toLowerCase() !== ORS_ENV) throw new HttpError(404, `unknown environment '${String(b.env_name)}'`);
        const hasSpec = b.task_spec !== undefined && b.task_spec !== null;
        const hasIndex = b.split !== undefined && b.split !== null && b.index !== undefined && b.index !== null;
        if (hasSpec === hasIndex) throw new HttpError(422, "Provide either task_spec or both split and index, not both/neither");
        let spec: TaskSpec;
        if (hasSpec) {
          const t = b.task_spec as Record<string, unknown>;
          if (typeof t !== "object" || typeof t.sample_id !== "string") throw new HttpError(422, "task_spec is a task of /tasks: {sample_id, scenario}");
          spec = { sample_id: t.sample_id, scenario: typeof t.scenario === "string" ? t.scenario : "" };
        } else {
          checkSplit(b.split);
          spec = taskAt(b.index);
        }
        if (pool.size >= pool.maxSessions) throw new GitGoodError("CAPACITY_REACHED", `${pool.size} episodes are live, the most this server runs at once`);
        pool.pick({ sampleId: spec.sample_id, scenario: spec.scenario || undefined });
        const setup = pool.open({ sampleId: spec.sample_id, scenario: spec.scenario || undefined }, client);
        setup.catch(() => undefined);
        sessions.set(sid, setup);
        return sendJson(res, 200, { sid });
      }
      case "POST delete": {
        const sid = sidOf(req);
        await endSession(sid, "the client deleted the session");
        return sendJson(res, 200, { sid });
      }
      case "POST create_session":
        openStream(res);
        sse(res, "task_id", randomUUID());
        sse(res, "end", "");
        res.end();
        return;
      case "POST delete_session":
        return sendJson(res, 200, { sid: sidOf(req) });
      case "GET {env}/task_tools": {
        const episode = await sessionEpisode(req);
        return sendJson(res, 200, { tools: episode.tools().map((o) => toolSpec(o.tool)) });
      }
      case "GET {env}/prompt": {
        const episode = await sessionEpisode(req);
        return sendJson(res, 200, [{ text: taskText(episode), detail: null, type: "text" }]);
      }
      case "POST {env}/call": {
        const b = await body(req, ["name", "input", "task_id"]);
        if (typeof b.task_id === "string") return streamCall(req, res, b.task_id);
        if (typeof b.name !== "string") throw new HttpError(422, "name is a string");
        const input = b.input ?? {};
        if (typeof input !== "object" || input === null || Array.isArray(input)) throw new HttpError(422, "input is an object");
        const episode = await sessionEpisode(req);
        return streamCall(req, res, startCall(episode, b.name, input as Record<string, unknown>));
      }
      default:
        throw new HttpError(404, "Not Found");
    }
  };

  return {
    async request(req, res) {
      const url = new URL(req.url ?? "/", "http://localhost");
      const parts = url.pathname.split("/").filter(Boolean);
      const first = (parts[0] ?? "").toLowerCase();
      if (!ROOT_PATHS.has(first) && first !== ORS_ENV) {
        // As the reference server's RedirectToDefaultEnvMiddleware: a path of no environment goes to the default one.
        res.writeHead(308, { Location: `/${ORS_ENV}${url.pathname}${url.search}` }).end();
        return;
      }
      try {
        await route(req, res, req.method ?? "GET", parts);
      } catch (err) {
        if (err instanceof HttpError) sendJson(res, err.status, { detail: err.message });
        else if (err instanceof GitGoodError) sendJson(res, err.code === "CAPACITY_REACHED" ? 503 : 400, { detail: err.message });
        else throw err;
      }
    },
    closeAll() {
      for (const res of streams) res.end();
      for (const sid of [...sessions.keys()]) void endSession(sid, "the server was stopped");
    },
  };
}
