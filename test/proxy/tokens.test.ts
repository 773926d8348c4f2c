import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProxyRecorder } from "../../src/proxy/index.js";
import { ModelProxy } from "../../src/proxy/server.js";
import { fakeUpstream, type FakeUpstream, type UpstreamReply } from "./fake-upstream.js";

// A vLLM/SGLang-style OpenAI-compatible endpoint: the answer carries the prompt's token ids, the answer's
// token ids and its log-probabilities.
const PROMPT_IDS = [151644, 872, 198, 6023, 151645];
const lp = (token: string, logprob: number) => ({ token, logprob, bytes: [...Buffer.from(token)], top_logprobs: [{ token, logprob }] });
const WHOLE = {
  id: "chatcmpl-1",
  object: "chat.completion",
  model: "qwen",
  prompt_token_ids: PROMPT_IDS,
  choices: [{ index: 0, message: { role: "assistant", content: "hello" }, finish_reason: "stop", token_ids: [14990, 151645], logprobs: { content: [lp("hello", -0.25), lp("", -0.0001)] } }],
  usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
};
const CHUNKS = [
  { id: "c", object: "chat.completion.chunk", prompt_token_ids: PROMPT_IDS, choices: [{ index: 0, delta: { role: "assistant", content: "" } }] },
  { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "hel" }, token_ids: [14990], logprobs: { content: [lp("hel", -0.5)] } }] },
  { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "lo" }, token_ids: [385], logprobs: { content: [lp("lo", -0.125)] }, finish_reason: "stop" }] },
  { id: "c", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 5, completion_tokens: 2 } },
];

function answer(req: { body: unknown }): UpstreamReply {
  return (req.body as { stream?: boolean }).stream ? { events: CHUNKS.map((data) => ({ data })), done: true } : { json: WHOLE };
}

function recorder(): ProxyRecorder & { notes: string[] } {
  const notes: string[] = [];
  return { notes, recordModel: () => undefined, note: (_t, text) => notes.push(text) };
}

/** The JSON of the note that records a call's token fields. */
function tokensNote(notes: string[], call: number): unknown {
  const prefix = `tokens of model call ${call}: `;
  const note = notes.find((n) => n.startsWith(prefix));
  return note === undefined ? undefined : JSON.parse(note.slice(prefix.length));
}

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await fakeUpstream(answer);
});
afterAll(() => upstream.close());

const REQUEST = { model: "qwen", messages: [{ role: "user", content: "hi" }], logprobs: true, top_logprobs: 1, return_token_ids: true };

async function through(proxy: ModelProxy, body: unknown): Promise<{ text: string; notes: string[] }> {
  const rec = recorder();
  const att = await proxy.attempt(rec, new AbortController().signal);
  const r = await fetch(`${att.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${att.key}` }, body: JSON.stringify(body) });
  const text = await r.text();
  await att.close();
  return { text, notes: rec.notes };
}

describe("the recording proxy with an endpoint that gives token ids and log-probabilities", () => {
  it("passes a whole answer through byte for byte and records its token ids and log-probabilities; the prompt's ids as a digest", async () => {
    const proxy = await ModelProxy.start({ upstreams: { openai: { baseURL: upstream.url, apiKey: "sk-user" } }, record: "digest" });
    try {
      const before = upstream.seen.length;
      const { text, notes } = await through(proxy, REQUEST);
      expect(text).toBe(JSON.stringify(WHOLE));
      // The request's token fields reach the endpoint as the agent sent them.
      expect(upstream.seen[before]?.body).toEqual(REQUEST);
      const choice = WHOLE.choices[0] as (typeof WHOLE.choices)[0];
      expect(tokensNote(notes, 1)).toEqual({ token_ids: choice.token_ids, logprobs: choice.logprobs, prompt_token_ids: { count: 5, sha256: expect.stringMatching(/^[0-9a-f]{16}$/) } });
    } finally {
      await proxy.close();
    }
  });

  it("joins a stream's token ids and log-probabilities in order, passes the stream through unchanged, and keeps the prompt's ids whole with --record-model-io full", async () => {
    const proxy = await ModelProxy.start({ upstreams: { openai: { baseURL: upstream.url, apiKey: "sk-user" } }, record: "full" });
    try {
      const { text, notes } = await through(proxy, { ...REQUEST, stream: true, stream_options: { include_usage: true } });
      expect(text).toBe(`${CHUNKS.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")}data: [DONE]\n\n`);
      expect(tokensNote(notes, 1)).toEqual({
        prompt_token_ids: PROMPT_IDS,
        token_ids: [14990, 385],
        logprobs: { content: [lp("hel", -0.5), lp("lo", -0.125)] },
      });
    } finally {
      await proxy.close();
    }
  });

  it("records nothing more for an answer without token fields", async () => {
    const plain = await fakeUpstream(() => ({ json: { choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }] } }));
    const proxy = await ModelProxy.start({ upstreams: { openai: { baseURL: plain.url, apiKey: "sk-user" } } });
    try {
      const { notes } = await through(proxy, REQUEST);
      expect(tokensNote(notes, 1)).toBeUndefined();
      expect(notes).toHaveLength(1);
    } finally {
      await proxy.close();
      await plain.close();
    }
  });
});
