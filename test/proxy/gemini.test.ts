import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage, Usage } from "../../src/model/types.js";
import { upstreamsFromEnv, type ProxyRecorder } from "../../src/proxy/index.js";
import { routeOf } from "../../src/proxy/api.js";
import { ModelProxy } from "../../src/proxy/server.js";
import { chatJson, fakeUpstream, type FakeUpstream, type SeenRequest, type UpstreamReply } from "./fake-upstream.js";

function recorder(): ProxyRecorder & { turns: Array<{ message: ChatMessage; usage?: Usage }>; notes: string[] } {
  const turns: Array<{ message: ChatMessage; usage?: Usage }> = [];
  const notes: string[] = [];
  return { turns, notes, recordModel: (message, usage) => turns.push({ message, usage }), note: (_t, text) => notes.push(text) };
}

const USER_GEMINI_KEY = "AIza-user-gemini-secret";
const USER_OPENAI_KEY = "sk-user-openai-secret";

/** Three chunks of one answer, as Gemini streams them: a thought, text, a function call; usage grows to its final count in the last. */
const CHUNKS = [
  { candidates: [{ content: { role: "model", parts: [{ text: "thinking it over", thought: true }] }, index: 0 }], usageMetadata: { promptTokenCount: 120, cachedContentTokenCount: 50 } },
  { candidates: [{ content: { role: "model", parts: [{ text: "Resolving " }] }, index: 0 }], usageMetadata: { promptTokenCount: 120, cachedContentTokenCount: 50, candidatesTokenCount: 5 } },
  {
    candidates: [{ content: { role: "model", parts: [{ text: "now." }, { functionCall: { name: "mcp_gitgood_finish_scenario", args: { reason: "done" } } }] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 120, cachedContentTokenCount: 50, candidatesTokenCount: 30, thoughtsTokenCount: 10, totalTokenCount: 160 },
    modelVersion: "gemini-x",
  },
];
/** The same answer whole. */
const WHOLE = {
  candidates: [{ content: { role: "model", parts: [{ text: "thinking it over", thought: true }, { text: "Resolving now." }, { functionCall: { name: "mcp_gitgood_finish_scenario", args: { reason: "done" } } }] }, finishReason: "STOP", index: 0 }],
  usageMetadata: CHUNKS[2]?.usageMetadata,
};
const EXPECTED = {
  message: { role: "assistant", content: "Resolving now.", tool_calls: [{ id: "call_0", type: "function", function: { name: "mcp_gitgood_finish_scenario", arguments: '{"reason":"done"}' } }] },
  usage: { prompt_tokens: 120, completion_tokens: 40 },
};

function answer(req: SeenRequest): UpstreamReply {
  if (req.path.includes(":countTokens")) return { json: { totalTokens: 7 } };
  if (req.path.includes(":streamGenerateContent")) return req.path.includes("alt=sse") ? { events: CHUNKS.map((data) => ({ data })) } : { json: CHUNKS };
  if (req.path.includes(":generateContent")) return { json: WHOLE };
  return { json: chatJson("hello", { in: 1, out: 1 }) };
}

let gemini: FakeUpstream;
let openai: FakeUpstream;
let proxy: ModelProxy;

beforeAll(async () => {
  gemini = await fakeUpstream(answer, false);
  openai = await fakeUpstream(answer);
  proxy = await ModelProxy.start({ upstreams: { gemini: { baseURL: gemini.url, apiKey: USER_GEMINI_KEY }, openai: { baseURL: openai.url, apiKey: USER_OPENAI_KEY } } });
});

afterAll(async () => {
  await proxy.close();
  await gemini.close();
  await openai.close();
});

function post(url: string, body: unknown, key?: string): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json", ...(key !== undefined ? { "x-goog-api-key": key } : {}) }, body: JSON.stringify(body) });
}

const REQUEST = { systemInstruction: { parts: [{ text: "be brief" }] }, contents: [{ role: "user", parts: [{ text: "resolve it" }] }], generationConfig: { temperature: 1 } };

describe("the proxy's Gemini pass-through (generateContent)", () => {
  it("passes a whole answer through with the user's key in x-goog-api-key; tokens from usageMetadata, thinking counted as output, thoughts left out of the text", async () => {
    const rec = recorder();
    const att = await proxy.attempt(rec, new AbortController().signal);
    const before = gemini.seen.length;
    const r = await post(`${att.url}/v1beta/models/gemini-x:generateContent`, REQUEST, att.key);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual(WHOLE);
    const seen = gemini.seen[before];
    expect(seen?.path).toBe("/v1beta/models/gemini-x:generateContent");
    expect(seen?.headers["x-goog-api-key"]).toBe(USER_GEMINI_KEY);
    expect(seen?.headers.authorization).toBeUndefined();
    expect(JSON.stringify(seen?.headers)).not.toContain(att.key);
    expect(rec.turns).toEqual([EXPECTED]);
    expect(rec.notes[0]).toMatch(/gemini-generate gemini-x, 200 in \d+ ms, tokens 120 in \(cache read 50, written 0\) \/ 40 out, stop STOP; request: 2 message\(s\)/);
    await att.close();
  });

  it("counts a stream of server-sent events (alt=sse) from its last usage; a key given as ?key= is taken and not passed on", async () => {
    const rec = recorder();
    const att = await proxy.attempt(rec, new AbortController().signal);
    const before = gemini.seen.length;
    const r = await post(`${att.url}/v1beta/models/gemini-x:streamGenerateContent?alt=sse&key=${att.key}`, REQUEST);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/event-stream");
    expect((await r.text()).split("data: ").length - 1).toBe(3);
    const seen = gemini.seen[before];
    expect(seen?.path).toBe("/v1beta/models/gemini-x:streamGenerateContent?alt=sse");
    expect(seen?.headers["x-goog-api-key"]).toBe(USER_GEMINI_KEY);
    expect(rec.turns).toEqual([EXPECTED]);
    expect(rec.notes[0]).toContain("tokens 120 in (cache read 50, written 0) / 40 out");
    await att.close();
  });

  it("counts a stream asked without alt=sse, which comes as one JSON array of chunks", async () => {
    const rec = recorder();
    const att = await proxy.attempt(rec, new AbortController().signal);
    const r = await post(`${att.url}/v1beta/models/gemini-x:streamGenerateContent`, REQUEST, att.key);
    expect(await r.json()).toEqual(CHUNKS);
    expect(rec.turns).toEqual([EXPECTED]);
    await att.close();
  });

  it("refuses the user's own key and a closed attempt's; passes countTokens through unrecorded", async () => {
    const att = await proxy.attempt(recorder(), new AbortController().signal);
    const rec = recorder();
    const open = await proxy.attempt(rec, new AbortController().signal);
    await att.close();
    const before = gemini.seen.length;
    for (const key of [USER_GEMINI_KEY, att.key]) expect((await post(`${proxy.url}/v1beta/models/gemini-x:generateContent`, REQUEST, key)).status).toBe(401);
    expect((await post(`${proxy.url}/v1beta/models/gemini-x:generateContent?key=${USER_GEMINI_KEY}`, REQUEST)).status).toBe(401);
    expect(gemini.seen.length).toBe(before);
    const count = await post(`${open.url}/v1beta/models/gemini-x:countTokens`, REQUEST, open.key);
    expect(await count.json()).toEqual({ totalTokens: 7 });
    expect(rec.turns).toEqual([]);
    await open.close();
  });

  it("routes Gemini paths by their version, leaving OpenAI's /v1/models and chat completions as they were", () => {
    expect(routeOf("POST", "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse&key=k")).toEqual({
      record: true, kind: "gemini-generate", path: "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", model: "gemini-2.5-pro", stream: true,
    });
    expect(routeOf("POST", "/v1/models/gemini-x:generateContent")).toMatchObject({ record: true, kind: "gemini-generate", model: "gemini-x", stream: false });
    expect(routeOf("GET", "/v1beta/models")).toEqual({ record: false, family: "gemini", path: "/v1beta/models" });
    expect(routeOf("GET", "/v1/models")).toEqual({ record: false, family: "openai", path: "/models" });
    expect(routeOf("POST", "/v1/chat/completions")).toMatchObject({ record: true, kind: "openai-chat" });
  });

  it("takes the user's Gemini endpoint from GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY (or GOOGLE_API_KEY)", () => {
    expect(upstreamsFromEnv({ GEMINI_API_KEY: "g" }).gemini).toEqual({ baseURL: "https://generativelanguage.googleapis.com", apiKey: "g" });
    expect(upstreamsFromEnv({ GOOGLE_API_KEY: "g2", GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:9" }).gemini).toEqual({ baseURL: "http://127.0.0.1:9", apiKey: "g2" });
    expect(upstreamsFromEnv({ OPENAI_API_KEY: "o" }).gemini).toBeUndefined();
  });
});
