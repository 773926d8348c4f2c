import { TaskState } from "@a2a-js/sdk";
import type { AgentExecutor, ExecutionEventBus, RequestContext } from "@a2a-js/sdk/server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createRequire } from "node:module";
import { GitGoodError, toGitGoodError } from "../errors.js";
import type { ChatMessage, ModelClient, ToolSpec } from "../model/types.js";
import { defaultIsolation, type Isolation } from "../sandbox/isolation.js";
import { scenarios } from "../scenarios/registry.js";
import { escapeControls } from "../util/escape.js";
import { TaskEvents, requestText } from "./events.js";
import { families } from "../families/registry.js";
import type { ParticipantTask } from "../families/definition.js";

const pkg = createRequire(import.meta.url)("../../package.json") as { version: string };

/** Turns of the model per task, when the caller says nothing. */
export const DEFAULT_PARTICIPANT_TURNS = 60;

/** The system prompt: how to work through the tools, ended by the tool `finish` names, then the scenario's own prompt. */
function systemPrompt(finish: string, scenario: string | undefined): string {
  const system = `You are working on a Git task in a sandbox repository, only through the tools you are given: they are
the only way to look at or change anything. Each tool takes a "reason" argument: say briefly why you call it.
Work step by step, check what a tool tells you, and fix your course when a tool reports an error. When the task
is complete, call ${finish}, then reply with a short summary and no tool call.`;
  return scenario ? `${system}\n\n${scenario}` : system;
}

/** The tools a task's MCP server offers, and whether the work was submitted. */
interface ToolBox {
  tools: ToolSpec[];
  /** The tool that submits the work. */
  finishTool: string;
  call(name: string, args: Record<string, unknown>): Promise<string>;
  submitted(): boolean;
}

/** Where the task's MCP server is: from the message's data part, else its MCP_URL and MCP_TOKEN lines. */
export function mcpEndpoint(ctx: RequestContext, text: string): { url: string; token: string | null; scenario: string | null } | null {
  for (const p of ctx.userMessage.parts) {
    if (p.content?.$case !== "data") continue;
    const task = (p.content.value as { gitgood_task?: { scenario?: unknown; mcp?: { url?: unknown; token?: unknown } } } | null)?.gitgood_task;
    if (typeof task?.mcp?.url === "string") {
      return { url: task.mcp.url, token: typeof task.mcp.token === "string" ? task.mcp.token : null, scenario: typeof task.scenario === "string" ? task.scenario : null };
    }
  }
  const url = /^MCP_URL:\s*(\S+)\s*$/m.exec(text)?.[1];
  if (!url) return null;
  return { url, token: /^MCP_TOKEN:\s*(\S+)\s*$/m.exec(text)?.[1] ?? null, scenario: null };
}

async function connectMcp(url: string, token: string | null): Promise<{ client: Client; box: ToolBox }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {});
  const client = new Client({ name: "gitgood-a2a-agent", version: pkg.version });
  try {
    await client.connect(transport);
  } catch (err) {
    throw new GitGoodError("AGENT_FAILED", `cannot connect to the task's MCP server ${url}: ${toGitGoodError(err).message}`);
  }
  const listed = await client.listTools();
  let submitted = false;
  const tools: ToolSpec[] = listed.tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description ?? "", parameters: t.inputSchema },
  }));
  const box: ToolBox = {
    tools,
    finishTool: "finish_scenario",
    async call(name, args) {
      const r = await client.callTool({ name, arguments: args });
      const content = (r.content ?? []) as { type: string; text?: string }[];
      const text = content.map((c) => c.text ?? "").join("\n");
      if (name === "finish_scenario" && r.isError !== true) submitted = true;
      return r.isError === true && !text.startsWith("error") ? `error: ${text}` : text;
    },
    submitted: () => submitted,
  };
  return { client, box };
}

/**
 * The model works the task through the tools: each turn one model call, its tool calls run in order
 * and their results fed back. It ends when the model stops calling tools after submitting (or twice
 * without), or when the turns are spent; the model's last words are the answer.
 */
async function toolLoop(model: ModelClient, system: string, task: string, box: ToolBox, maxTurns: number, signal: AbortSignal): Promise<string> {
  const messages: ChatMessage[] = [
    { role: "system", content: system },
    { role: "user", content: task },
  ];
  let last = "";
  let nudged = false;
  for (let turn = 0; turn < maxTurns && !signal.aborted; turn++) {
    const reply = await model.complete({ messages, tools: box.tools, temperature: 0, signal });
    messages.push(reply.message);
    last = reply.message.content ?? last;
    const calls = reply.message.tool_calls ?? [];
    if (calls.length === 0) {
      if (box.submitted() || nudged) break;
      nudged = true;
      messages.push({ role: "user", content: `The task is not submitted yet: finish it with the tools, then call ${box.finishTool}.` });
      continue;
    }
    for (const call of calls) {
      let output: string;
      try {
        const args = call.function.arguments.trim() === "" ? {} : (JSON.parse(call.function.arguments) as Record<string, unknown>);
        output = await box.call(call.function.name, args);
      } catch (err) {
        output = `error: ${toGitGoodError(err).message}`;
      }
      messages.push({ role: "tool", tool_call_id: call.id, content: output });
    }
  }
  return last;
}

/** How the participant executor works a task: its model, its turn limit, and how a family's task runs commands. */
export interface ParticipantOptions {
  /** The model that plays the participant. */
  model: ModelClient;
  /** Most model requests for one task (default: DEFAULT_PARTICIPANT_TURNS). */
  maxTurns?: number;
  /** How a family's task (a SWE task) isolates its commands (default: namespaces where bubblewrap runs, else none). */
  isolation?: Isolation;
  /** Most seconds one command of a family's task runs (default: the task's own). */
  commandTimeoutSeconds?: number;
  /** The real path of the directory a family's task must lie in (the CLI's `--shared-dir`); absent: anywhere. */
  sharedDir?: string;
  /** Most bytes of files a family's task may name. */
  maxRepoBytes?: number;
  /** Receives one line per event of a task, without a newline. */
  log: (line: string) => void;
}

/**
 * gitgood's llm agent as an A2A participant (purple agent). A message in the shape of a family's
 * participant task is worked as that task says (a SWE task, `REPO_DIR:…` by the AgentBeats convention,
 * in REPO_DIR with the SWE tools, answered with `<patch>…</patch>`); a malformed one fails. A
 * GitGoodBench task names an MCP server (URL and bearer token), which the model works through; the
 * answer is its summary. A message of no shape it knows is rejected with a line saying what is expected.
 */
export class ParticipantExecutor implements AgentExecutor {
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly opts: ParticipantOptions) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const events = new TaskEvents(ctx, bus);
    events.start();
    const stop = new AbortController();
    this.running.set(ctx.taskId, stop);
    try {
      const text = requestText(ctx);
      const tasks = families().flatMap((f) => (f.participantTask ? [f.participantTask] : []));
      const own = tasks.find((t) => t.matches(text));
      if (own) {
        await this.executeTask(own, text, events, stop.signal);
        return;
      }
      const endpoint = mcpEndpoint(ctx, text);
      if (!endpoint) {
        const shapes = [...tasks.map((t) => t.shape), "a GitGoodBench task with MCP_URL and MCP_TOKEN lines"];
        events.end(TaskState.TASK_STATE_REJECTED, `this agent takes ${shapes.join(" or ")}`);
        return;
      }
      events.status(TaskState.TASK_STATE_WORKING, `working through ${endpoint.url}`);
      const { client, box } = await connectMcp(endpoint.url, endpoint.token);
      try {
        const prompt = scenarios().find((d) => d.name.toLowerCase() === endpoint.scenario)?.prompt;
        const answer = await toolLoop(this.opts.model, systemPrompt(box.finishTool, prompt), text, box, this.opts.maxTurns ?? DEFAULT_PARTICIPANT_TURNS, stop.signal);
        if (stop.signal.aborted) {
          events.end(TaskState.TASK_STATE_CANCELED, "cancelled");
          return;
        }
        events.end(TaskState.TASK_STATE_COMPLETED, answer === "" ? (box.submitted() ? "submitted" : "done") : answer);
      } finally {
        await client.close().catch(() => undefined);
      }
    } catch (err) {
      const e = toGitGoodError(err);
      this.opts.log(`task ${ctx.taskId} failed: ${escapeControls(e.message)}`);
      if (stop.signal.aborted) events.end(TaskState.TASK_STATE_CANCELED, "cancelled");
      else events.end(TaskState.TASK_STATE_FAILED, e.message);
    } finally {
      this.running.delete(ctx.taskId);
    }
  }

  /** A family's task: the model works through the tools it opens with; the answer is the task's (SWE: REPO_DIR's diff in <patch> tags). */
  private async executeTask(own: ParticipantTask, text: string, events: TaskEvents, signal: AbortSignal): Promise<void> {
    const task = await own.open(text, {
      isolation: this.opts.isolation ?? defaultIsolation(),
      ...(this.opts.commandTimeoutSeconds !== undefined ? { commandTimeoutSeconds: this.opts.commandTimeoutSeconds } : {}),
      ...(this.opts.sharedDir !== undefined ? { sharedDir: this.opts.sharedDir } : {}),
      ...(this.opts.maxRepoBytes !== undefined ? { maxRepoBytes: this.opts.maxRepoBytes } : {}),
    });
    try {
      events.status(TaskState.TASK_STATE_WORKING, `working in ${task.where}`);
      await toolLoop(this.opts.model, systemPrompt(task.finishTool, task.prompt), task.text, task, this.opts.maxTurns ?? DEFAULT_PARTICIPANT_TURNS, signal);
      if (signal.aborted) {
        events.end(TaskState.TASK_STATE_CANCELED, "cancelled");
        return;
      }
      events.end(TaskState.TASK_STATE_COMPLETED, await task.answer());
    } finally {
      task.close();
    }
  }

  async cancelTask(taskId: string): Promise<void> {
    this.running.get(taskId)?.abort();
  }
}
