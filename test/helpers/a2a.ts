import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { TaskState } from "@a2a-js/sdk";
import type { AgentExecutor, ExecutionEventBus, RequestContext } from "@a2a-js/sdk/server";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { TaskEvents, requestText } from "../../src/a2a/events.js";
import { mcpEndpoint } from "../../src/a2a/participant.js";
import { agentCard, serveA2a } from "../../src/a2a/server.js";
import { main } from "../../src/cli/main.js";
import { captureSink, setEnv } from "./cli.js";
import { readFileSync } from "node:fs";
import path from "node:path";
import { blob, resolutionsFor } from "./scenarios.js";
import { connectHttp, ok, sandboxesIn, taskData, type McpFixtures } from "./mcp.js";

/** What a scripted participant does with one task: it publishes through `events` and must end the task. */
export type PurpleScript = (task: { ctx: RequestContext; text: string; events: TaskEvents; signal: AbortSignal }) => Promise<void>;

export interface Purple {
  url: string;
  /** The texts of the messages it got, in order. */
  received: string[];
  close(): Promise<void>;
}

/**
 * A scripted A2A participant on 127.0.0.1 (the same server code as gitgood's agents: v1.0 and v0.3, large
 * bodies, a loopback Host), taking only requests with `token` when one is given.
 */
export async function startPurple(script: PurpleScript, opts: { streaming?: boolean; token?: string } = {}): Promise<Purple> {
  const received: string[] = [];
  const running = new Map<string, AbortController>();
  const executor: AgentExecutor = {
    async execute(ctx: RequestContext, bus: ExecutionEventBus) {
      const events = new TaskEvents(ctx, bus);
      events.start();
      const text = requestText(ctx);
      received.push(text);
      const stop = new AbortController();
      running.set(ctx.taskId, stop);
      try {
        await script({ ctx, text, events, signal: stop.signal });
      } finally {
        running.delete(ctx.taskId);
      }
    },
    async cancelTask(taskId: string) {
      running.get(taskId)?.abort();
    },
  };
  const card = agentCard({ name: "scripted purple", description: "a test participant", url: "http://127.0.0.1:1", skills: [] });
  if (opts.streaming === false && card.capabilities) card.capabilities.streaming = false;
  const handle = await serveA2a({ host: "127.0.0.1", port: 0, card, executor, access: { token: opts.token, allowedOrigins: [], loopback: true } });
  card.supportedInterfaces = card.supportedInterfaces.map((i) => ({ ...i, url: `${handle.url}/` }));
  return { url: handle.url, received, close: () => handle.close() };
}

/** Connects to the MCP server a GitGoodBench task names, as a participant would. */
export async function connectTaskTools(ctx: RequestContext, text: string): Promise<Client> {
  const endpoint = mcpEndpoint(ctx, text);
  if (!endpoint) throw new Error(`no MCP server in the task: ${text}`);
  return (await connectHttp(endpoint.url, endpoint.token ? { Authorization: `Bearer ${endpoint.token}` } : {})).client;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });
}

/** A server started by serveInProcess: where it listens, and the token it takes (given in the environment, or the one it made and said). */
export interface InProcessServer {
  url: string;
  token: string;
  stderr: () => string;
  stop: () => Promise<number>;
}

/** `gitgood a2a ARGS --port 0` in this process, until `stop`; resolves once it listens. */
export async function serveInProcess(args: string[], env: Record<string, string>): Promise<InProcessServer> {
  const controller = new AbortController();
  let listening!: (url: string) => void;
  const url = new Promise<string>((resolve) => (listening = resolve));
  const stderr = captureSink(() => {
    const m = /listening on (http:\/\/\S+)/.exec(stderr.text());
    if (m) listening(m[1] as string);
  });
  const restoreEnv = setEnv(env);
  const done = main(["a2a", ...args, "--port", "0"], { stdout: captureSink(), stderr, stdin: Readable.from([]), signal: controller.signal }).finally(restoreEnv);
  const exitedEarly = done.then((code) => Promise.reject(new Error(`server exited with ${code} before listening: ${stderr.text()}`)));
  const address = await Promise.race([url, exitedEarly]);
  const token = env.GITGOOD_A2A_TOKEN || /token (\S+) \(also in /.exec(stderr.text())?.[1];
  if (!token) throw new Error(`the server said no token: ${stderr.text()}`);
  return {
    url: address,
    token,
    stderr: stderr.text,
    stop: async () => {
      controller.abort();
      return done;
    },
  };
}

/** One event of a v0.3 JSON-RPC stream, as AgentBeats clients see them. */
export interface LegacyEvent {
  kind: string;
  status?: { state: string; message?: { parts: { kind: string; text?: string; data?: unknown }[] } };
  artifact?: { name?: string; parts: { kind: string; text?: string; data?: unknown }[] };
  final?: boolean;
  id?: string;
}

/**
 * An AgentBeats-style client: what the Python a2a-sdk 0.3 sends (no A2A-Version header, JSON-RPC
 * `message/stream` with a v0.3 message whose one text part is the request), reading the SSE events.
 */
export async function agentBeatsRequest(server: { url: string; token: string }, text: string): Promise<LegacyEvent[]> {
  const res = await fetch(`${server.url}/`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream", Authorization: `Bearer ${server.token}` },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: randomUUID(),
      method: "message/stream",
      params: { message: { kind: "message", role: "user", messageId: randomUUID(), parts: [{ kind: "text", text }] } },
    }),
  });
  if (!res.ok || !res.body) throw new Error(`message/stream answered ${res.status}: ${await res.text()}`);
  const events: LegacyEvent[] = [];
  let buffer = "";
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += Buffer.from(chunk).toString("utf8");
    let cut: number;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = block
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trim())
        .join("");
      if (data === "") continue;
      const parsed = JSON.parse(data) as { result?: LegacyEvent; error?: { message: string } };
      if (parsed.error) throw new Error(`stream error: ${parsed.error.message}`);
      if (parsed.result) events.push(parsed.result);
    }
  }
  return events;
}

/** The texts of a stream's status messages. */
export function statusTexts(events: readonly LegacyEvent[]): string[] {
  return events.flatMap((e) => (e.kind === "status-update" ? (e.status?.message?.parts ?? []).filter((p) => p.kind === "text").map((p) => p.text ?? "") : []));
}

/** The Result artifact of a stream: its text and its data part. */
export function resultOf(events: readonly LegacyEvent[]): { text: string; data: Record<string, unknown> } | null {
  const art = events.find((e) => e.kind === "artifact-update" && e.artifact?.name === "Result")?.artifact;
  if (!art) return null;
  const text = art.parts.find((p) => p.kind === "text")?.text ?? "";
  const data = (art.parts.find((p) => p.kind === "data")?.data ?? {}) as Record<string, unknown>;
  return { text, data };
}

export function finalState(events: readonly LegacyEvent[]): string | undefined {
  return events.filter((e) => e.kind === "status-update").at(-1)?.status?.state;
}

export const COMPLETED = TaskState.TASK_STATE_COMPLETED;

/** Resolves every conflict of the merge sample's live sandbox (found by its id, other sandboxes may be live) to the merge's content. */
export async function solveMerge(client: Client, fx: McpFixtures): Promise<void> {
  const sandbox = sandboxesIn(fx.sandboxRoot).find((d) => path.basename(d).startsWith(`${fx.mergeSample.id}-`));
  if (!sandbox) throw new Error("no live sandbox of the merge sample");
  for (const file of (await taskData(client)).files as string[]) {
    const conflicted = readFileSync(path.join(sandbox, "work", file));
    for (const content of resolutionsFor(conflicted, blob(fx.mergeFx, fx.merge, file))) {
      await ok(client, "resolve_current_merge_conflict_with", { content, reason: "scripted participant" });
    }
  }
}
