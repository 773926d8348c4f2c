import http from "node:http";
import type { AddressInfo } from "node:net";
import type { FakeReply } from "../helpers/fake-openai.js";

/** One request a fake upstream took: its path, its headers and its JSON body. */
export interface TakenRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface FakeUpstream {
  /** The base URL to give a client (`http://127.0.0.1:PORT`; the OpenAI clients add `/v1` themselves where told). */
  url: string;
  taken: TakenRequest[];
  close: () => Promise<void>;
}

/**
 * A scripted reply; `writingMs`: a long answer, written over this long from the request's arrival (streamed,
 * the first event comes at once and the others at the end; whole, the answer comes at the end).
 */
export interface NativeReply extends FakeReply {
  writingMs?: number;
}

type Json = Record<string, unknown>;

/** A Messages response as the Messages API streams it: the start with the input usage, each block, the stop with the output usage. */
function anthropicEvents(message: Json): Json[] {
  const usage = (message.usage ?? {}) as Json;
  const blocks = (message.content ?? []) as Json[];
  return [
    { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } },
    ...blocks.flatMap((b, index): Json[] =>
      b.type === "text"
        ? [{ type: "content_block_start", index, content_block: { type: "text", text: "" } }, { type: "content_block_delta", index, delta: { type: "text_delta", text: b.text } }, { type: "content_block_stop", index }]
        : [{ type: "content_block_start", index, content_block: { ...b, input: {} } }, { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } }, { type: "content_block_stop", index }],
    ),
    { type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } },
    { type: "message_stop" },
  ];
}

/** A Responses response as the Responses API streams it: created (empty, no usage), then completed (whole, with its usage). */
function responsesEvents(response: Json): Json[] {
  return [
    { type: "response.created", sequence_number: 0, response: { ...response, status: "in_progress", output: [], usage: null } },
    { type: "response.completed", sequence_number: 1, response },
  ];
}

/**
 * A stand-in for a model API on 127.0.0.1 that answers each POST with the next scripted reply (the last one
 * again once the script is used up) and keeps each request's path, headers and body, so a test sees what
 * a client put on the wire (the Anthropic key header, the Responses path). A request asking for a stream
 * gets the reply as the API streams it (an error status stays a JSON answer).
 */
export async function fakeUpstream(replies: NativeReply[]): Promise<FakeUpstream> {
  const taken: TakenRequest[] = [];
  let next = 0;
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString("utf8")));
    req.on("end", () => {
      taken.push({ path: req.url ?? "", headers: req.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
      const reply = replies[Math.min(next++, replies.length - 1)] as NativeReply;
      const streamed = (taken.at(-1) as TakenRequest).body.stream === true && (reply.status ?? 200) < 300;
      const written = new Promise((resolve) => setTimeout(resolve, reply.writingMs ?? 0));
      void (reply.after ?? Promise.resolve()).then(async () => {
        if (res.destroyed) return;
        if (!streamed) {
          // A whole answer is sent once it is all written.
          await written;
          if (res.destroyed) return;
          res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
          res.end(JSON.stringify(reply.body));
          return;
        }
        const body = reply.body as Json;
        const events = req.url?.endsWith("/messages") ? anthropicEvents(body) : responsesEvents(body);
        res.writeHead(200, { "content-type": "text/event-stream", ...reply.headers });
        for (const [i, e] of events.entries()) {
          if (i === 1) await written;
          if (res.destroyed) return;
          res.write(`event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`);
        }
        res.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    taken,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface NativeUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** A Messages API response: text and tool_use blocks, with usage (the cache's counts apart from input_tokens, as Anthropic gives them). */
export function anthropicMessage(reply: { text?: string; tools?: { id: string; name: string; input: unknown }[] }, usage: NativeUsage = { input: 11, output: 7 }) {
  const tools = reply.tools ?? [];
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "fake",
    content: [...(reply.text !== undefined ? [{ type: "text", text: reply.text }] : []), ...tools.map((t) => ({ type: "tool_use", ...t }))],
    stop_reason: tools.length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: usage.input,
      output_tokens: usage.output,
      cache_read_input_tokens: usage.cacheRead ?? 0,
      cache_creation_input_tokens: usage.cacheWrite ?? 0,
    },
  };
}

/** A Responses API response: a message and function_call items, with usage (cached tokens counted within input_tokens, as OpenAI gives them). */
export function responsesReply(reply: { text?: string; calls?: { call_id: string; name: string; arguments: string }[] }, usage: NativeUsage = { input: 11, output: 7 }) {
  const calls = reply.calls ?? [];
  return {
    id: "resp_1",
    object: "response",
    created_at: 0,
    status: "completed",
    model: "fake",
    output: [
      ...(reply.text !== undefined
        ? [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: reply.text, annotations: [] }] }]
        : []),
      ...calls.map((c, i) => ({ type: "function_call", id: `fc_${i}`, status: "completed", ...c })),
    ],
    usage: {
      input_tokens: usage.input,
      input_tokens_details: { cached_tokens: usage.cacheRead ?? 0 },
      output_tokens: usage.output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.input + usage.output,
    },
  };
}
