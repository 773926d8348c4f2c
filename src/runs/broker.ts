import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import type { ToolEndpoint } from "../agents/agent.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import type { ScenarioToolResult } from "../scenarios/types.js";
import { ToolRegistry } from "../tools/registry.js";
import { OUTPUT_OFFSET_DESCRIPTION, REASON_DESCRIPTION, type ToolResult } from "../tools/tool.js";
import { processAlive } from "../sandbox/owner.js";
import { removeAtExit } from "../util/cleanup.js";
import type { BrokerContext, BrokerDescription, BrokerResponse } from "./broker-client.js";
import type { AgentSession } from "./session.js";

/** The socket's name in the broker's directory. */
const SOCKET_NAME = "tool.sock";
/** Broker directories are `<tmp>/gitgood-tools-<pid>-XXXXXX`: the process id tells a killed run's from a live one's. */
const DIR_PREFIX = "gitgood-tools-";
/** The largest request accepted (a resolution may be a whole file). */
const MAX_REQUEST = 16 << 20;

const RequestSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("describe") }),
  z.object({ op: z.literal("context") }),
  z.object({ op: z.literal("call"), tool: z.string(), args: z.unknown() }),
]);

// As with the MCP server's tools of the same names, `reason` is accepted but optional.
const reason = z.string().optional().describe(REASON_DESCRIPTION);

/** The broker's own tools, next to the scenario's: read the task, and say the work is done. */
export const BROKER_TOOLS = new ToolRegistry<ToolBroker>([
  {
    name: "get_task",
    description:
      "Shows the task of the scenario: what to do, and the starting state (conflicts, commits or hunks). Read it first.",
    input: z.object({ output_offset: z.number().int().min(0).optional().describe(OUTPUT_OFFSET_DESCRIPTION), reason }).strict(),
    readOnly: true,
    run: async (broker) => broker.taskText(),
  },
  {
    name: "finish_scenario",
    description:
      "Submits your work on the scenario: no scenario tool works afterwards, and the run scores the final state " +
      "when your program exits. Call it once you are done (or simply end your program).",
    input: z.object({ reason }).strict(),
    readOnly: false,
    run: async (broker) => broker.submit(),
  },
]);

/** Removes the broker directories of processes that are gone (a run killed with SIGKILL leaves its own). */
export function sweepBrokerDirs(tmp = os.tmpdir()): void {
  let names: string[];
  try {
    names = readdirSync(tmp);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = new RegExp(`^${DIR_PREFIX}(\\d+)-`).exec(name)?.[1];
    if (pid === undefined || processAlive(Number(pid))) continue;
    try {
      rmSync(path.join(tmp, name), { recursive: true, force: true });
    } catch {
      /* another process may be removing it at the same time */
    }
  }
}

function errorResult(tool: string, err: GitGoodError, done: boolean): ScenarioToolResult {
  return { tool, ok: false, output: `error: ${err.message}`, error: { code: err.code, message: err.message }, done };
}

/**
 * The tool broker of one attempt whose agent is another program: it serves the live scenario's tools on
 * a Unix socket in a directory of its own, outside the work tree (isolation shows the directory to the
 * program read-only at a fixed path). Every call goes into the attempt's session, one at a time, so the
 * trajectory is exactly what the program did; nothing but tool calls is offered. Closing it stops the
 * calls and removes the directory.
 */
export class ToolBroker implements ToolEndpoint {
  private queue: Promise<unknown> = Promise.resolve();
  private submitted = false;
  private closed = false;
  private readonly connections = new Set<net.Socket>();

  private constructor(
    readonly dir: string,
    readonly socket: string,
    private readonly server: net.Server,
    private readonly session: AgentSession,
    private readonly removeDir: () => void,
  ) {}

  /** Serves `session`'s tools on a new socket (in the temporary directory: a socket's path must be short). */
  static async open(session: AgentSession): Promise<ToolBroker> {
    sweepBrokerDirs();
    const dir = mkdtempSync(path.join(os.tmpdir(), `${DIR_PREFIX}${process.pid}-`));
    const removeDir = removeAtExit(dir);
    const socket = path.join(dir, SOCKET_NAME);
    // Half-open: a client ends its side after its request and still reads the answer.
    const server = net.createServer({ allowHalfOpen: true });
    const broker = new ToolBroker(dir, socket, server, session, removeDir);
    server.on("connection", (conn) => broker.serve(conn));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(socket, () => {
          server.off("error", reject);
          resolve();
        });
      });
    } catch (err) {
      removeDir();
      throw new GitGoodError("WRITE_FAILED", `cannot serve the tools on ${socket}: ${toGitGoodError(err).message}`);
    }
    return broker;
  }

  /** Reads one request line, answers it, and ends the connection. */
  private serve(conn: net.Socket): void {
    this.connections.add(conn);
    conn.on("close", () => this.connections.delete(conn));
    conn.on("error", () => undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    let answered = false;
    const answer = (response: BrokerResponse): void => {
      answered = true;
      if (!conn.destroyed) conn.end(`${JSON.stringify(response)}\n`);
    };
    const handle = (text: string): void => {
      this.answer(text).then(answer, (err: unknown) => {
        const e = toGitGoodError(err);
        answer({ ok: false, error: { code: e.code, message: e.message } });
      });
    };
    conn.on("data", (b: Buffer) => {
      if (answered) return;
      chunks.push(b);
      size += b.length;
      const newline = b.indexOf(0x0a);
      if (size > MAX_REQUEST) {
        answer({ ok: false, error: { code: "BAD_REQUEST", message: `a request may have at most ${MAX_REQUEST} bytes` } });
      } else if (newline >= 0) {
        answered = true;
        handle(Buffer.concat(chunks).toString("utf8").split("\n")[0] ?? "");
      }
    });
    conn.on("end", () => {
      if (answered) return;
      answered = true;
      if (size > 0) handle(Buffer.concat(chunks).toString("utf8"));
      else conn.end();
    });
  }

  /** One request, after the requests before it. */
  private answer(text: string): Promise<BrokerResponse> {
    const run = this.queue.then(async (): Promise<BrokerResponse> => ({ ok: true, value: await this.dispatch(text) }));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async dispatch(text: string): Promise<unknown> {
    if (this.closed || this.session.signal.aborted) {
      throw new GitGoodError("ABORTED", "the attempt has ended (its time limit, or a stop): no more tool calls");
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new GitGoodError("BAD_REQUEST", "a request is one line of JSON");
    }
    const parsed = RequestSchema.safeParse(raw);
    if (!parsed.success) throw new GitGoodError("BAD_REQUEST", `requests are {"op": "describe" | "context" | "call", ...}`);
    const request = parsed.data;
    switch (request.op) {
      case "describe":
        return this.describe();
      case "context":
        return { text: this.session.context.text, data: this.session.context.data } satisfies BrokerContext;
      case "call":
        return this.call(request.tool, request.args);
    }
  }

  private describe(): BrokerDescription {
    const functions = [...BROKER_TOOLS.functionTools(), ...this.session.tools];
    return {
      scenario: this.session.definition.name,
      sample_id: this.session.sample.id,
      tools: functions.map((f) => f.function.name),
      functions,
      help: `${this.session.toolHelp}\n\n${BROKER_TOOLS.help()}`,
    };
  }

  /** One tool call of the program, recorded in the session. */
  private async call(tool: string, args: unknown): Promise<ScenarioToolResult> {
    if (BROKER_TOOLS.get(tool)) {
      const r: ToolResult = await BROKER_TOOLS.call(this, tool, args);
      const result = { ...r, done: this.session.isDone() };
      this.session.recordExternalCall(tool, args, result);
      return result;
    }
    if (this.submitted) {
      const result = errorResult(tool, new GitGoodError("NO_SCENARIO", "the scenario was submitted; end your program to have it scored"), this.session.isDone());
      this.session.recordExternalCall(tool, args, result);
      return result;
    }
    return this.session.call(tool, args);
  }

  taskText(): string {
    return `${this.session.context.text}\n\nWhen you are done, call finish_scenario (or end your program): the run then scores the final state.`;
  }

  submit(): string {
    if (this.submitted) throw new GitGoodError("NO_SCENARIO", "the scenario is submitted already; end your program to have it scored");
    this.submitted = true;
    return "Submitted. The run scores the sandbox's final state when your program exits.";
  }

  /** Stops serving: refuses new calls, waits for the one running, closes the socket and removes the directory. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const conn of this.connections) conn.destroy();
    });
    await this.queue;
    this.removeDir();
  }
}
