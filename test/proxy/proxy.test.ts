import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResponseCache } from "../../src/model/cache.js";
import type { ChatMessage, Usage } from "../../src/model/types.js";
import type { ProxyRecorder } from "../../src/proxy/index.js";
import { ModelProxy } from "../../src/proxy/server.js";
import { chatJson, fakeUpstream, type FakeUpstream, type UpstreamReply } from "./fake-upstream.js";

/** A recorder that keeps what the proxy writes of an attempt. */
function recorder(): ProxyRecorder & { turns: Array<{ message: ChatMessage; usage?: Usage }>; notes: string[] } {
  const turns: Array<{ message: ChatMessage; usage?: Usage }> = [];
  const notes: string[] = [];
  return { turns, notes, recordModel: (message, usage) => turns.push({ message, usage }), note: (_t, text) => notes.push(text) };
}

const USER_OPENAI_KEY = "sk-user-openai-secret";
const USER_ANTHROPIC_KEY = "sk-ant-user-secret";

/** The fake's answers, chosen by path and by whether the request asks for a stream. */
function answer(req: { path: string; body: unknown }): UpstreamReply {
  const body = req.body as { stream?: boolean; input?: unknown };
  if (req.path.endsWith("/chat/completions")) {
    if (!body.stream) return { json: chatJson("hello", { in: 11, out: 3, cached: 4 }) };
    return {
      events: [
        { data: { choices: [{ index: 0, delta: { role: "assistant", content: "hel" } }] } },
        { data: { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_9", type: "function", function: { name: "view_rebase_todo", arguments: '{"reason":' } }] } }] } },
        { data: { choices: [{ index: 0, delta: { content: "lo", tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] }, finish_reason: "tool_calls" }] } },
        { data: { choices: [], usage: { prompt_tokens: 21, completion_tokens: 7 } } },
      ],
      done: true,
    };
  }
  if (req.path.endsWith("/responses")) {
    const response = {
      id: "resp_1",
      status: "completed",
      output: [
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "done" }] },
        { type: "function_call", call_id: "fc_1", name: "execute_rebase", arguments: '{"reason":"go"}' },
      ],
      usage: { input_tokens: 30, output_tokens: 9, input_tokens_details: { cached_tokens: 10 } },
    };
    if (!body.stream) return { json: response };
    return {
      events: [
        { event: "response.created", data: { type: "response.created", response: { ...response, status: "in_progress", output: [], usage: null } } },
        { event: "response.output_text.delta", data: { type: "response.output_text.delta", delta: "done" } },
        { event: "response.completed", data: { type: "response.completed", response } },
      ],
    };
  }
  const message = {
    id: "msg_1",
    type: "message",
    role: "assistant",
    content: [
      { type: "text", text: "ok" },
      { type: "tool_use", id: "tu_1", name: "Edit", input: { file: "a.py" } },
    ],
    stop_reason: "tool_use",
    usage: { input_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20, output_tokens: 12 },
  };
  if (!body.stream) return { json: message };
  return {
    events: [
      { event: "message_start", data: { type: "message_start", message: { ...message, content: [], usage: { input_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20, output_tokens: 1 } } } },
      { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
      { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } } },
      { event: "content_block_start", data: { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "tu_1", name: "Edit", input: {} } } },
      { event: "content_block_delta", data: { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"file":' } } },
      { event: "content_block_delta", data: { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '"a.py"}' } } },
      { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 12 } } },
      { event: "message_stop", data: { type: "message_stop" } },
    ],
  };
}

let openai: FakeUpstream;
let anthropic: FakeUpstream;
let proxy: ModelProxy;
let cacheDir: string;

beforeAll(async () => {
  openai = await fakeUpstream(answer);
  anthropic = await fakeUpstream(answer, false);
  cacheDir = mkdtempSync(path.join(os.tmpdir(), "gitgood-proxy-cache-"));
  proxy = await ModelProxy.start({
    upstreams: { openai: { baseURL: openai.url, apiKey: USER_OPENAI_KEY }, anthropic: { baseURL: anthropic.url, apiKey: USER_ANTHROPIC_KEY } },
    cache: new ResponseCache(cacheDir),
    record: "digest",
  });
});

afterAll(async () => {
  await proxy.close();
  await openai.close();
  await anthropic.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

async function post(url: string, key: string, body: unknown, anthropicStyle = false): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(anthropicStyle ? { "x-api-key": key, "anthropic-version": "2023-06-01" } : { authorization: `Bearer ${key}` }) },
    body: JSON.stringify(body),
  });
}

describe("the recording model proxy", () => {
  it("passes OpenAI chat completions through with the user's key and records the turn and its usage", async () => {
    const rec = recorder();
    const att = await proxy.attempt(rec, new AbortController().signal);
    expect(att.key).not.toBe(USER_OPENAI_KEY);
    const before = openai.seen.length;
    const r = await post(`${att.url}/v1/chat/completions`, att.key, { model: "gpt-x", messages: [{ role: "user", content: "hi" }] });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual(chatJson("hello", { in: 11, out: 3, cached: 4 }));
    const seen = openai.seen[before];
    expect(seen?.path).toBe("/v1/chat/completions");
    expect(seen?.headers.authorization).toBe(`Bearer ${USER_OPENAI_KEY}`);
    expect(JSON.stringify(seen?.headers)).not.toContain(att.key);
    expect(rec.turns).toEqual([{ message: { role: "assistant", content: "hello" }, usage: { prompt_tokens: 11, completion_tokens: 3 } }]);
    expect(rec.notes[0]).toMatch(/openai-chat gpt-x, 200 in \d+ ms, tokens 11 in \(cache read 4, written 0\) \/ 3 out/);
    expect(rec.notes[0]).toMatch(/1 message\(s\) sha256:[0-9a-f]{16}$/);
    await att.close();
  });

  it("refuses a request with any key but an open attempt's: the user's own, a closed attempt's, none", async () => {
    const att = await proxy.attempt(recorder(), new AbortController().signal);
    await att.close();
    const before = openai.seen.length;
    for (const key of [USER_OPENAI_KEY, att.key, ""]) {
      const r = await post(`${proxy.url}/v1/chat/completions`, key, { model: "gpt-x", messages: [] });
      expect(r.status).toBe(401);
    }
    expect(openai.seen.length).toBe(before);
  });

  it("counts a streamed chat answer from its usage chunk, asking for it when the agent did not", async () => {
    const rec = recorder();
    const att = await proxy.attempt(rec, new AbortController().signal);
    const before = openai.seen.length;
    const r = await post(`${att.url}/v1/chat/completions`, att.key, { model: "gpt-x", stream: true, messages: [{ role: "user", content: "hi" }] });
    const text = await r.text();
    expect(text).toContain("data: [DONE]");
    expect((openai.seen[before]?.body as { stream_options?: unknown }).stream_options).toEqual({ include_usage: true });
    expect(rec.turns).toEqual([
      {
        message: { role: "assistant", content: "hello", tool_calls: [{ id: "call_9", type: "function", function: { name: "view_rebase_todo", arguments: '{"reason":"x"}' } }] },
        usage: { prompt_tokens: 21, completion_tokens: 7 },
      },
    ]);
    await att.close();
  });

  it("passes the Responses API through, whole and streamed", async () => {
    const rec = recorder();
    const att = await proxy.attempt(rec, new AbortController().signal);
    for (const stream of [false, true]) {
      const r = await post(`${att.url}/v1/responses`, att.key, { model: "gpt-r", stream, input: "do it", instructions: "be brief" });
      expect(r.status).toBe(200);
      await r.text();
    }
    const expected = {
      message: { role: "assistant", content: "done", tool_calls: [{ id: "fc_1", type: "function", function: { name: "execute_rebase", arguments: '{"reason":"go"}' } }] },
      usage: { prompt_tokens: 30, completion_tokens: 9 },
    };
    expect(rec.turns).toEqual([expected, expected]);
    expect(rec.notes.every((n) => n.includes("cache read 10"))).toBe(true);
    await att.close();
  });

  it("passes the Anthropic Messages API through with x-api-key, whole and streamed, counting cached input", async () => {
    const rec = recorder();
    const att = await proxy.attempt(rec, new AbortController().signal);
    const before = anthropic.seen.length;
    for (const stream of [false, true]) {
      const r = await post(`${att.url}/v1/messages?beta=true`, att.key, { model: "claude-x", stream, system: "sys", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }, true);
      expect(r.status).toBe(200);
      await r.text();
    }
    const seen = anthropic.seen[before];
    expect(seen?.path).toBe("/v1/messages?beta=true");
    expect(seen?.headers["x-api-key"]).toBe(USER_ANTHROPIC_KEY);
    expect(seen?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(seen?.headers.authorization).toBeUndefined();
    const expected = {
      message: { role: "assistant", content: "ok", tool_calls: [{ id: "tu_1", type: "function", function: { name: "Edit", arguments: '{"file":"a.py"}' } }] },
      usage: { prompt_tokens: 125, completion_tokens: 12 },
    };
    expect(rec.turns).toEqual([expected, expected]);
    expect(rec.notes[1]).toContain("cache read 100, written 20");
    await att.close();
  });

  it("answers a temperature-0 request asked before from the run's response cache, streamed ones included", async () => {
    const rec = recorder();
    const att = await proxy.attempt(rec, new AbortController().signal);
    const before = openai.seen.length;
    const bodies: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await post(`${att.url}/v1/chat/completions`, att.key, { model: "gpt-c", temperature: 0, stream: true, messages: [{ role: "user", content: "same" }] });
      bodies.push(await r.text());
    }
    expect(openai.seen.length).toBe(before + 1);
    expect(bodies[1]).toBe(bodies[0]);
    expect(rec.turns.map((t) => t.usage)).toEqual([{ prompt_tokens: 21, completion_tokens: 7 }, { prompt_tokens: 0, completion_tokens: 0, cached: true }]);
    expect(rec.notes[1]).toContain("from the response cache");
    await att.close();
  });

  it("keeps the request's messages whole with record full, and stops taking the key once the attempt's time is up", async () => {
    const full = await ModelProxy.start({ upstreams: { openai: { baseURL: openai.url, apiKey: USER_OPENAI_KEY } }, record: "full" });
    try {
      const rec = recorder();
      const ctl = new AbortController();
      const att = await full.attempt(rec, ctl.signal);
      await (await post(`${att.url}/v1/chat/completions`, att.key, { model: "gpt-x", messages: [{ role: "user", content: "the whole text" }] })).text();
      expect(rec.notes[0]).toContain('[{"role":"user","content":"the whole text"}]');
      ctl.abort();
      const r = await post(`${att.url}/v1/chat/completions`, att.key, { model: "gpt-x", messages: [] });
      expect(r.status).toBe(401);
    } finally {
      await full.close();
    }
  });
});
