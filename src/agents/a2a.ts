import { cpSync, mkdirSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import type { AnyScenarioDefinition } from "../scenarios/definition.js";
import { removeAtExit } from "../util/cleanup.js";
import type { askAgent, AskOptions } from "./a2a-client.js";
import type { Agent, Session } from "./agent.js";

/** Where REPO_DIR copies of SWE tasks are made when nothing else is said: a directory both agents can reach. */
export const SHARED_DIR_ENV = "GITGOOD_A2A_SHARED_DIR";
/** The bearer token sent to the participant when none is given (`gitgood a2a agent` takes it as its --token). */
export const PARTICIPANT_TOKEN_ENV = "GITGOOD_A2A_PARTICIPANT_TOKEN";

/** The scenario tools of one attempt served over MCP (Streamable HTTP) at a URL of their own, behind a bearer token. */
export interface HostedTools {
  url: string;
  token: string;
  /** Whether an MCP client has opened a session on it. */
  connected(): boolean;
  /** Stops serving these tools and ends their sessions. */
  close(): Promise<void>;
}

/** Serves an attempt's tools (from its tool broker's socket) to a participant over MCP. */
export interface ToolHost {
  /** Serves the tools behind the broker socket `socket` until the returned handle is closed. */
  open(socket: string): Promise<HostedTools>;
}

interface A2aAgentOptions {
  /** The participant's A2A base URL (its card at /.well-known/agent-card.json). */
  url: string;
  /** The bearer token the participant takes, sent only to the participant URL's origin (default: $GITGOOD_A2A_PARTICIPANT_TOKEN, else none). */
  token?: string;
  /** Serves GitGoodBench scenarios' tools to the participant; without one, only SWE tasks can be given. */
  toolHost?: ToolHost | null;
  /** Where a SWE task's REPO_DIR is made (default: $GITGOOD_A2A_SHARED_DIR, else the temporary directory). */
  sharedDir?: string;
  /** Only these scenarios (registry names); default every one. */
  scenarios?: ReadonlySet<string> | null;
  /** Stops every task of this agent (the assessment was cancelled). */
  signal?: AbortSignal;
  idleSeconds?: number;
  pollSeconds?: number;
}

/**
 * The message of a patch task (a scenario with `patchTask`), in the AgentBeats convention for SWE-bench
 * tasks: the repository's path, the issue, and the hints when given.
 */
function patchTaskMessage(repoDir: string, problem: string, hints: string | null): string {
  const text = `REPO_DIR:${repoDir}\n\nProblem Statement:\n${problem.trimEnd()}`;
  return hints !== null && hints.trim() !== "" ? `${text}\n\nHints:\n${hints.trimEnd()}` : text;
}

/** The message of a GitGoodBench task: the scenario's task, and the MCP server to work it through. */
function toolsMessage(task: string, hosted: Pick<HostedTools, "url" | "token">): string {
  return [
    task,
    "",
    "Work on this task only through the tools of this MCP server (Streamable HTTP):",
    `MCP_URL: ${hosted.url}`,
    `MCP_TOKEN: ${hosted.token}`,
    `Send "Authorization: Bearer <MCP_TOKEN>" with every request. Call get_task to read the task again, use the`,
    "scenario's tools, call finish_scenario when you are done, then answer this message: the final state is scored.",
  ].join("\n");
}

function stringField(data: Record<string, unknown>, key: string): string | null {
  const v = data[key];
  return typeof v === "string" ? v : null;
}

/**
 * Any A2A agent as a gitgood agent. Each attempt is a fresh A2A conversation. A SWE task gets a copy
 * of the sandbox's repository as REPO_DIR (under the shared directory) and answers with its patch as
 * text; the scenario is finished with that answer, and evaluation applies the patch to a fresh copy,
 * so nothing else the participant does to REPO_DIR counts. A GitGoodBench task gets the scenario's
 * tools over MCP at a URL of its own with a bearer token; when the participant answers, the final
 * state is scored. A participant that never connects to its MCP server is an AGENT_FAILED error.
 */
/** Sends parts to the connected participant and waits for its answer. */
type Ask = (parts: Parameters<typeof askAgent>[1], signal: AbortSignal) => ReturnType<typeof askAgent>;

export class A2aAgent implements Agent {
  readonly name: string;
  readonly external = true;

  constructor(private readonly opts: A2aAgentOptions) {
    this.name = `a2a:${opts.url}`;
  }

  supports(scenario: AnyScenarioDefinition): boolean {
    if (this.opts.scenarios && !this.opts.scenarios.has(scenario.name)) return false;
    return scenario.patchTask === true || this.opts.toolHost !== null;
  }

  private askOptions(session: Session, signal: AbortSignal): AskOptions {
    return {
      signal,
      idleSeconds: this.opts.idleSeconds,
      pollSeconds: this.opts.pollSeconds,
      onEvent: (line) => session.note("note", `participant: ${line}`),
    };
  }

  async run(session: Session): Promise<void> {
    session.beginTurn();
    const controller = new AbortController();
    const stop = (): void => controller.abort();
    session.signal.addEventListener("abort", stop, { once: true });
    this.opts.signal?.addEventListener("abort", stop, { once: true });
    if (session.signal.aborted || this.opts.signal?.aborted) controller.abort();
    try {
      // The A2A client library is loaded by the runs of this agent alone (it costs every other run's start-up).
      const { askAgent, connectAgent } = await import("./a2a-client.js");
      const client = await connectAgent(this.opts.url, this.opts.token ?? (process.env[PARTICIPANT_TOKEN_ENV] || undefined));
      const ask: Ask = (parts, signal) => askAgent(client, parts, this.askOptions(session, signal));
      if (session.definition.patchTask === true) await this.runPatchTask(session, ask, controller.signal);
      else await this.runWithTools(session, ask, controller.signal);
    } finally {
      session.signal.removeEventListener("abort", stop);
      this.opts.signal?.removeEventListener("abort", stop);
    }
  }

  private async runPatchTask(session: Session, ask: Ask, signal: AbortSignal): Promise<void> {
    const data = session.context.data;
    const root = this.opts.sharedDir ?? (process.env[SHARED_DIR_ENV] || path.join(os.tmpdir(), "gitgood-a2a"));
    mkdirSync(root, { recursive: true });
    const holder = mkdtempSync(path.join(root, `${session.sample.id.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 60)}-`));
    const remove = removeAtExit(holder);
    try {
      const repoDir = path.join(holder, "repo");
      // Links are copied as links, never followed.
      cpSync(session.scenario.sandbox.workDir, repoDir, { recursive: true, verbatimSymlinks: true });
      const text = patchTaskMessage(repoDir, stringField(data, "problem_statement") ?? session.context.text, stringField(data, "hints_text"));
      session.note("note", `sent to ${this.opts.url}:\n${text}`);
      const answer = await ask([{ text }], signal);
      session.note("note", `the participant answered (${answer.text.length} characters)`);
      const r = await session.call("finish", { reason: "the participant's answer over A2A", ...(answer.text === "" ? {} : { answer: answer.text }) });
      if (!r.ok) throw new GitGoodError("INTERNAL", `finishing the patch task with the participant's answer failed: ${r.output}`);
    } finally {
      remove();
    }
  }

  private async runWithTools(session: Session, ask: Ask, signal: AbortSignal): Promise<void> {
    const host = this.opts.toolHost;
    const endpoint = session.toolEndpoint;
    if (!host || !endpoint) throw new GitGoodError("INTERNAL", "a GitGoodBench task over A2A needs the runner's tool broker and an MCP tool host");
    const hosted = await host.open(endpoint.socket);
    try {
      const text = toolsMessage(session.context.text, hosted);
      session.note("note", `sent to ${this.opts.url} with the MCP server ${hosted.url}`);
      const parts = [
        { text },
        {
          data: {
            gitgood_task: {
              scenario: session.definition.name.toLowerCase(),
              sample_id: session.sample.id,
              mcp: { url: hosted.url, token: hosted.token, transport: "streamable-http" },
            },
          },
        },
      ];
      const answer = await ask(parts, signal);
      session.note("note", `the participant answered: ${answer.text.slice(0, 2000)}`);
      if (!hosted.connected()) {
        throw new GitGoodError("AGENT_FAILED", `the participant answered without ever connecting to its MCP server (${hosted.url})`);
      }
    } finally {
      await hosted.close();
    }
  }
}
