import http from "node:http";
import type { AddressInfo } from "node:net";

/** One answer of the fake upstream: JSON, or a stream of server-sent events (each a JSON payload, then `[DONE]` for OpenAI chat). */
export type UpstreamReply = { json: unknown; status?: number } | { events: Array<{ event?: string; data: unknown }>; done?: boolean };

export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface FakeUpstream {
  /** The base URL as the API family expects it (OpenAI: with `/v1`; Anthropic: without). */
  url: string;
  origin: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

/**
 * A model endpoint stand-in on 127.0.0.1 that answers any of the three APIs: each POST gets `answer(request)`
 * (the request body parsed), as JSON or as an event stream, and every request is kept with its headers.
 */
export async function fakeUpstream(answer: (req: SeenRequest, index: number) => UpstreamReply, withV1 = true): Promise<FakeUpstream> {
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      const request: SeenRequest = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: body ? (JSON.parse(body) as unknown) : null };
      seen.push(request);
      const reply = answer(request, seen.length - 1);
      if ("json" in reply) {
        const text = JSON.stringify(reply.json);
        res.writeHead(reply.status ?? 200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        res.end(text);
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (const e of reply.events) res.write(`${e.event ? `event: ${e.event}\n` : ""}data: ${JSON.stringify(e.data)}\n\n`);
      if (reply.done) res.write("data: [DONE]\n\n");
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: withV1 ? `${origin}/v1` : origin,
    origin,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A chat-completions answer with text or one tool call, and its usage. */
export function chatJson(text: string | null, usage: { in: number; out: number; cached?: number }, call?: { name: string; args: unknown }): unknown {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 0,
    model: "m",
    choices: [
      {
        index: 0,
        finish_reason: call ? "tool_calls" : "stop",
        message: { role: "assistant", content: text, ...(call ? { tool_calls: [{ id: "call_1", type: "function", function: { name: call.name, arguments: JSON.stringify(call.args) } }] } : {}) },
      },
    ],
    usage: { prompt_tokens: usage.in, completion_tokens: usage.out, total_tokens: usage.in + usage.out, prompt_tokens_details: { cached_tokens: usage.cached ?? 0 } },
  };
}
