import net from "node:net";
import { GitGoodError, isErrorCode } from "../errors.js";
import type { ScenarioToolResult } from "../scenarios/types.js";
import type { FunctionTool } from "../tools/schema.js";

/**
 * The tool broker's protocol: a client connects to the attempt's Unix socket, writes one request as a
 * line of JSON, and reads one line of JSON back: `{"ok": true, "value": ...}` or `{"ok": false,
 * "error": {"code", "message"}}`. Requests: `describe` (the scenario and its tools), `context` (the
 * task as text and data, unrecorded) and `call` (one tool call, recorded in the attempt's trajectory).
 */
type BrokerRequest = { op: "describe" } | { op: "context" } | { op: "call"; tool: string; args: unknown };

export type BrokerResponse = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } };

/** What `describe` answers. */
export interface BrokerDescription {
  /** The scenario's registry name (MCR, IR, ICC, …). */
  scenario: string;
  sample_id: string;
  /** Every tool the broker answers: its own (get_task, finish_scenario), the scenario's, and extra ones (memory). */
  tools: string[];
  functions: FunctionTool[];
  help: string;
}

/** What `context` answers: the initial context the agent was given. */
export interface BrokerContext {
  text: string;
  data: Record<string, unknown>;
}

function ask(socket: string, request: BrokerRequest): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const conn = net.createConnection(socket);
    conn.on("connect", () => conn.end(`${JSON.stringify(request)}\n`));
    conn.on("data", (b: Buffer) => chunks.push(b));
    conn.on("error", (err: NodeJS.ErrnoException) => {
      reject(new GitGoodError("TOOL_SOCKET_GONE", `the tool socket ${socket} does not answer (${err.code ?? err.message}): the attempt has ended, or the path is wrong`, { socket }));
    });
    conn.on("close", () => {
      let response: BrokerResponse;
      try {
        response = JSON.parse(Buffer.concat(chunks).toString("utf8")) as BrokerResponse;
      } catch {
        reject(new GitGoodError("TOOL_SOCKET_GONE", `the tool socket ${socket} closed without an answer: the attempt has ended`, { socket }));
        return;
      }
      if (response.ok) resolve(response.value);
      else reject(new GitGoodError(isErrorCode(response.error.code) ? response.error.code : "INTERNAL", response.error.message));
    });
  });
}

/** The scenario a tool socket serves. */
export async function describeBroker(socket: string): Promise<BrokerDescription> {
  return (await ask(socket, { op: "describe" })) as BrokerDescription;
}

/** The task a tool socket serves, as the agent was given it. */
export async function brokerContext(socket: string): Promise<BrokerContext> {
  return (await ask(socket, { op: "context" })) as BrokerContext;
}

/** Calls one tool through a tool socket; a failed call is an error result, as with any tool. */
export async function callBroker(socket: string, tool: string, args: unknown): Promise<ScenarioToolResult> {
  return (await ask(socket, { op: "call", tool, args })) as ScenarioToolResult;
}
