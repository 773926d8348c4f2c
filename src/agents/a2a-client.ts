import { randomUUID } from "node:crypto";
import {
  CancelTaskRequest,
  GetTaskRequest,
  SendMessageRequest,
  TaskState,
  taskStateToJSON,
  type Message,
  type Part,
  type Task,
} from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from "@a2a-js/sdk/client";
import { GitGoodError, toGitGoodError } from "../errors.js";

/** Seconds a participant's stream may stay silent before gitgood stops listening and polls `tasks/get` instead. */
export const DEFAULT_IDLE_SECONDS = 60;
/** Seconds between two `tasks/get` polls. */
export const DEFAULT_POLL_SECONDS = 5;

export interface AskOptions {
  /** Aborting it stops waiting and asks the participant to cancel its task. */
  signal: AbortSignal;
  /** Silence on the stream after which gitgood polls instead (default DEFAULT_IDLE_SECONDS). */
  idleSeconds?: number;
  /** Interval of `tasks/get` polls (default DEFAULT_POLL_SECONDS). */
  pollSeconds?: number;
  /** Told of every event of the participant (for the trajectory), as one line. */
  onEvent?: (line: string) => void;
}

/** What a participant answered: its text and data parts, in order (data parts as JSON), and the task it ran. */
export interface Answer {
  text: string;
  taskId: string | null;
}

const DONE_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

/** A participant's own state name (`completed`, `failed`, …), as A2A v0.3 spells it. */
function stateName(state: TaskState | undefined): string {
  if (state === undefined) return "unknown";
  return taskStateToJSON(state).replace(/^TASK_STATE_/, "").toLowerCase().replace(/_/g, "-");
}

/** The text of parts: text parts as they are, data parts as JSON, files by their name or URL. */
export function partsText(parts: readonly Part[]): string {
  const out: string[] = [];
  for (const p of parts) {
    const c = p.content;
    if (!c) continue;
    if (c.$case === "text") out.push(c.value);
    else if (c.$case === "data") out.push(JSON.stringify(c.value));
    else if (c.$case === "raw") out.push(c.value.toString("utf8"));
  }
  return out.join("\n");
}

/** Everything a finished task says: its artifacts' parts, then its final status message. */
export function taskText(task: Task): string {
  const pieces = task.artifacts.map((a) => partsText(a.parts));
  if (task.status?.message) pieces.push(partsText(task.status.message.parts));
  return pieces.filter((p) => p !== "").join("\n");
}

/**
 * `fetch` that adds `Authorization: Bearer <token>` to requests for `base`'s origin only: a card that
 * names another address for its interface gets no token from it.
 */
function bearerFetch(base: string, token: string): typeof fetch {
  const origin = new URL(base).origin;
  return (input, init) => {
    const target = new URL(input instanceof Request ? input.url : String(input));
    if (target.origin !== origin) return fetch(input, init);
    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    for (const [name, value] of new Headers(init?.headers)) headers.set(name, value);
    headers.set("authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

/**
 * A client for the A2A agent at `url` (its card at /.well-known/agent-card.json), speaking v1.0 or v0.3 as
 * the card says; with `token`, every request to the agent's own origin carries it as a bearer token.
 */
export async function connectAgent(url: string, token?: string): Promise<Client> {
  const legacyCompat = { enabled: true };
  const fetchImpl = token ? bearerFetch(url, token) : undefined;
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ legacyCompat, fetchImpl }), new RestTransportFactory({ legacyCompat, fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ legacyCompat, fetchImpl }),
    }),
  );
  try {
    return await factory.createFromUrl(url);
  } catch (err) {
    throw new GitGoodError("AGENT_UNREACHABLE", `the A2A agent at ${url} cannot be reached: ${toGitGoodError(err).message}`, { url });
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

function aborted(): GitGoodError {
  return new GitGoodError("ABORTED", "the participant's task was stopped (the time limit, or a cancel)");
}

/** The answer of a task that ended, or the error naming the state it ended in. */
function finished(task: Task): Answer {
  const state = task.status?.state;
  const text = taskText(task);
  if (state === TaskState.TASK_STATE_COMPLETED) return { text, taskId: task.id };
  const why = task.status?.message ? partsText(task.status.message.parts).split("\n")[0] ?? "" : "";
  throw new GitGoodError("AGENT_FAILED", `the participant's task ended in state ${stateName(state)}${why ? `: ${why}` : ""}`, {
    state: stateName(state),
    task_id: task.id,
  });
}

/** Asks for the task until it has ended (each poll is a short request: nothing is cut off however long it takes). */
async function poll(client: Client, taskId: string, opts: AskOptions): Promise<Answer> {
  const interval = (opts.pollSeconds ?? DEFAULT_POLL_SECONDS) * 1000;
  let lastState: TaskState | undefined;
  for (;;) {
    if (opts.signal.aborted) throw aborted();
    let task: Task;
    try {
      task = await client.getTask(GetTaskRequest.fromJSON({ id: taskId }), { signal: opts.signal });
    } catch (err) {
      if (opts.signal.aborted) throw aborted();
      throw new GitGoodError("AGENT_FAILED", `tasks/get of the participant's task ${taskId} failed: ${toGitGoodError(err).message}`);
    }
    const state = task.status?.state;
    if (state !== lastState) opts.onEvent?.(`task ${taskId}: ${stateName(state)} (polled)`);
    lastState = state;
    if (state !== undefined && DONE_STATES.has(state)) return finished(task);
    await sleep(interval, opts.signal);
  }
}

/**
 * Streams the task's events; when the stream goes silent for longer than the idle limit, ends, or
 * breaks, the task is followed by polling `tasks/get` instead, so a participant that works for hours
 * without a word is still heard when it answers.
 */
async function stream(client: Client, request: SendMessageRequest, opts: AskOptions, seen: { taskId: string | null }): Promise<Answer> {
  const idleMs = (opts.idleSeconds ?? DEFAULT_IDLE_SECONDS) * 1000;
  const listening = new AbortController();
  const stop = (): void => listening.abort();
  opts.signal.addEventListener("abort", stop, { once: true });
  let timer: NodeJS.Timeout | undefined;
  let silent = false;
  // The idle limit counts from the task's start: before it there is no task to poll, so a participant slow to
  // publish its task (or one that answers with a lone message after long work) is waited for, bounded by `signal`.
  const arm = (): void => {
    clearTimeout(timer);
    if (seen.taskId === null) return;
    timer = setTimeout(() => {
      silent = true;
      listening.abort();
    }, idleMs);
  };
  const began = (id: string): void => {
    seen.taskId ??= id;
  };
  try {
    for await (const event of client.sendMessageStream(request, { signal: listening.signal })) {
      const p = event.payload;
      if (!p) {
        arm();
        continue;
      }
      if (p.$case === "message") {
        opts.onEvent?.("message");
        return { text: partsText(p.value.parts), taskId: p.value.taskId || null };
      }
      if (p.$case === "task") {
        began(p.value.id);
        opts.onEvent?.(`task ${seen.taskId}: ${stateName(p.value.status?.state)}`);
        const state = p.value.status?.state;
        if (state !== undefined && DONE_STATES.has(state)) break;
      } else if (p.$case === "statusUpdate") {
        began(p.value.taskId);
        const state = p.value.status?.state;
        opts.onEvent?.(`task ${seen.taskId}: ${stateName(state)}`);
        if (state !== undefined && DONE_STATES.has(state)) break;
      } else {
        began(p.value.taskId);
        opts.onEvent?.(`task ${seen.taskId}: artifact ${p.value.artifact?.name ?? ""}`.trimEnd());
      }
      arm();
    }
  } catch (err) {
    if (opts.signal.aborted) throw aborted();
    if (seen.taskId === null) {
      throw new GitGoodError("AGENT_FAILED", `the participant's stream failed before a task began: ${toGitGoodError(err).message}`);
    }
    if (!silent) opts.onEvent?.(`stream broke (${toGitGoodError(err).message}); polling`);
  } finally {
    clearTimeout(timer);
    opts.signal.removeEventListener("abort", stop);
  }
  const taskId = seen.taskId;
  if (taskId === null) throw new GitGoodError("AGENT_FAILED", "the participant's stream ended without a task or a message");
  if (silent) opts.onEvent?.(`no event for ${idleMs / 1000} s; polling tasks/get`);
  // The final state (and every artifact) is read back whole, whichever way the stream ended.
  return poll(client, taskId, opts);
}

/**
 * Sends one message to an A2A agent as a fresh conversation and waits for its answer: streaming
 * when its card says it streams, else a non-blocking send followed by `tasks/get` polls. A task that
 * ends in any state but `completed` is an AGENT_FAILED error naming the state. When `signal` aborts,
 * the participant is asked to cancel the task.
 */
export async function askAgent(client: Client, parts: readonly Record<string, unknown>[], opts: AskOptions): Promise<Answer> {
  const request = SendMessageRequest.fromJSON({
    message: { messageId: randomUUID(), contextId: randomUUID(), role: "ROLE_USER", parts },
    configuration: { returnImmediately: true, acceptedOutputModes: ["text/plain", "application/json"] },
  });
  const card = await client.getAgentCard();
  const seen: { taskId: string | null } = { taskId: null };
  try {
    if (card.capabilities?.streaming === true) return await stream(client, request, opts, seen);
    let first: Message | Task;
    try {
      first = await client.sendMessage(request, { signal: opts.signal });
    } catch (err) {
      if (opts.signal.aborted) throw aborted();
      throw new GitGoodError("AGENT_FAILED", `message/send to the participant failed: ${toGitGoodError(err).message}`);
    }
    if (!("status" in first)) return { text: partsText(first.parts), taskId: first.taskId || null };
    seen.taskId = first.id;
    const state = first.status?.state;
    if (state !== undefined && DONE_STATES.has(state)) return finished(first);
    return await poll(client, first.id, opts);
  } catch (err) {
    if (opts.signal.aborted && seen.taskId !== null) {
      await client.cancelTask(CancelTaskRequest.fromJSON({ id: seen.taskId }), { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
    }
    throw err;
  }
}
