import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage, Usage } from "../../src/model/types.js";
import type { ProxyAttempt, ProxyRecorder } from "../../src/proxy/index.js";
import { ModelProxy } from "../../src/proxy/server.js";
import { chatJson, fakeUpstream, type FakeUpstream } from "./fake-upstream.js";

// The proxy forwards only the routes its model APIs have, on paths that cannot climb out of them, with the
// request's own method, and every call it forwards is in the attempt's trajectory.

const USER_OPENAI_KEY = "sk-user-openai-secret";
const USER_ANTHROPIC_KEY = "sk-ant-user-secret";
const USER_GEMINI_KEY = "user-gemini-secret";

function recorder(): ProxyRecorder & { turns: Array<{ message: ChatMessage; usage?: Usage }>; notes: string[] } {
  const turns: Array<{ message: ChatMessage; usage?: Usage }> = [];
  const notes: string[] = [];
  return { turns, notes, recordModel: (message, usage) => turns.push({ message, usage }), note: (_t, text) => notes.push(text) };
}

let openai: FakeUpstream;
let anthropic: FakeUpstream;
let gemini: FakeUpstream;
let proxy: ModelProxy;

beforeAll(async () => {
  const answer = (req: { path: string }) => (req.path.includes("chat/completions") ? { json: chatJson("hi", { in: 1, out: 1 }) } : { json: { data: [], path: req.path } });
  openai = await fakeUpstream(answer);
  anthropic = await fakeUpstream(answer, false);
  gemini = await fakeUpstream(answer, false);
  proxy = await ModelProxy.start({
    upstreams: {
      openai: { baseURL: openai.url, apiKey: USER_OPENAI_KEY },
      anthropic: { baseURL: anthropic.url, apiKey: USER_ANTHROPIC_KEY },
      gemini: { baseURL: gemini.url, apiKey: USER_GEMINI_KEY },
    },
  });
});

afterAll(async () => {
  await proxy.close();
  await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
});

/** One request with its path exactly as written (fetch would resolve `..` before sending). */
function raw(att: ProxyAttempt, method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = { authorization: `Bearer ${att.key}`, "x-api-key": att.key, "x-goog-api-key": att.key };
    if (body !== undefined) Object.assign(headers, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    const req = http.request({ host: "127.0.0.1", port: att.port, method, path, headers }, (res) => {
      let text = "";
      res.on("data", (b: Buffer) => (text += b.toString("utf8")));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const seenCount = (): number => openai.seen.length + anthropic.seen.length + gemini.seen.length;

describe("the model proxy's routes", () => {
  it.for([
    ["POST", "/v1/models/../../admin/secret"],
    ["POST", "/v1/models/%2e%2e/%2e%2e/admin/secret"],
    ["POST", "/v1/models/%2E%2E/%2E%2E/admin/secret"],
    ["POST", "/v1/models/.%2e/.%2e/admin/secret"],
    ["POST", "/v1/chat/completions/.."],
    ["POST", "/v1/chat/completions/./"],
    ["POST", "/v1/models/..%2f..%2fadmin%2fsecret"],
    ["POST", "/v1/models/%252e%252e/admin"],
    ["POST", "/v1/models/..\\..\\admin\\secret"],
    ["POST", "/v1/models/%5c..%5cadmin"],
    ["POST", "//admin/secret"],
    ["POST", "/v1//chat/completions"],
    ["POST", "/v1/chat//completions"],
    ["POST", "/v1beta/models/gemini-x%2f..%2f..%2fadmin:generateContent"],
    ["POST", "/v1beta/models/../../admin:generateContent"],
    ["GET", "/v1/models/.."],
    ["GET", "/v1/models/%2e%2e"],
    ["GET", "/v1/models/%2E%2e/"],
    ["GET", "/v1/models/..%2f..%2fadmin%2fsecret"],
    ["GET", "/v1/models/..%5c..%5cadmin"],
    ["GET", "/v1/models/%252e%252e"],
    ["GET", "/v1/models/gpt%00x"],
    ["GET", "/v1beta/models/%2e%2e"],
    ["GET", "/v1/models/../files"],
    ["GET", "/v1/models/a/b"],
    ["POST", "/v1/files"],
    ["POST", "/admin/secret"],
    ["DELETE", "/v1/models/gpt-x"],
    ["PUT", "/v1/chat/completions"],
  ] as const)("refuses %s %s without reaching any upstream", async ([method, path]) => {
    const rec = recorder();
    const att = await proxy.attempt(rec, new AbortController().signal);
    const before = seenCount();
    const r = await raw(att, method, path, method === "GET" ? undefined : '{"model":"gpt-x","messages":[]}');
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(seenCount()).toBe(before);
    expect(rec.turns).toEqual([]);
    await att.close();
  });

  it("refuses a GET that carries a body rather than sending it anywhere", async () => {
    const att = await proxy.attempt(recorder(), new AbortController().signal);
    const before = seenCount();
    const r = await raw(att, "GET", "/v1/models", '{"purpose":"fine-tune"}');
    expect(r.status).toBe(400);
    expect(seenCount()).toBe(before);
    await att.close();
  });

  it("forwards a GET as a GET, without a body, and records it", async () => {
    const rec = recorder();
    const att = await proxy.attempt(rec, new AbortController().signal);
    for (const path of ["/v1/models", "/v1/models/gpt-x", "/v1/models/"]) {
      const before = openai.seen.length;
      const r = await raw(att, "GET", path);
      expect(r.status).toBe(200);
      const seen = openai.seen[before];
      expect(seen?.method).toBe("GET");
      expect(seen?.path).toBe(path === "/v1/models/" ? "/v1/models" : path);
      expect(seen?.body).toBeNull();
      expect(seen?.headers.authorization).toBe(`Bearer ${USER_OPENAI_KEY}`);
    }
    expect(rec.notes).toEqual([
      expect.stringMatching(/^call through the proxy \(not a model turn\): GET \/v1\/models answered 200 in \d+ ms$/),
      expect.stringMatching(/^call through the proxy \(not a model turn\): GET \/v1\/models\/gpt-x answered 200 in \d+ ms$/),
      expect.stringMatching(/^call through the proxy \(not a model turn\): GET \/v1\/models answered 200 in \d+ ms$/),
    ]);
    expect(rec.turns).toEqual([]);
    await att.close();
  });

  it("records the other calls it forwards too: Anthropic's and Gemini's token counts, Gemini's model list", async () => {
    const rec = recorder();
    const att = await proxy.attempt(rec, new AbortController().signal);
    expect((await raw(att, "POST", "/v1/messages/count_tokens", '{"model":"c","messages":[]}')).status).toBe(200);
    expect((await raw(att, "POST", "/v1beta/models/gemini-x:countTokens", '{"contents":[]}')).status).toBe(200);
    expect((await raw(att, "GET", "/v1beta/models")).status).toBe(200);
    expect(anthropic.seen.at(-1)).toMatchObject({ method: "POST", path: "/v1/messages/count_tokens" });
    expect(gemini.seen.slice(-2).map((s) => `${s.method} ${s.path}`)).toEqual(["POST /v1beta/models/gemini-x:countTokens", "GET /v1beta/models"]);
    expect(rec.notes.map((n) => n.replace(/ in \d+ ms$/, ""))).toEqual([
      "call through the proxy (not a model turn): POST /v1/messages/count_tokens answered 200",
      "call through the proxy (not a model turn): POST /v1beta/models/gemini-x:countTokens answered 200",
      "call through the proxy (not a model turn): GET /v1beta/models answered 200",
    ]);
    await att.close();
  });

  it("still forwards a model turn on an allowed path, with one trailing slash", async () => {
    const rec = recorder();
    const att = await proxy.attempt(rec, new AbortController().signal);
    const before = openai.seen.length;
    const r = await raw(att, "POST", "/v1/chat/completions/", '{"model":"gpt-x","messages":[{"role":"user","content":"hi"}]}');
    expect(r.status).toBe(200);
    expect(openai.seen[before]).toMatchObject({ method: "POST", path: "/v1/chat/completions" });
    expect(rec.turns).toHaveLength(1);
    await att.close();
  });
});
