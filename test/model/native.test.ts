import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleToJson, type Sample } from "../../src/dataset/sample.js";
import { GitGoodError } from "../../src/errors.js";
import { ResponseCache } from "../../src/model/cache.js";
import { lookupModel } from "../../src/model/lookup.js";
import { CHECK_PROMPT } from "../../src/model/openai.js";
import type { ChatMessage, ModelRequest, ToolSpec } from "../../src/model/types.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { gitgood } from "../helpers/cli.js";
import { NEVER, deadEndpoint } from "../helpers/fake-openai.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture } from "../helpers/runs.js";
import { anthropicMessage, fakeUpstream, responsesReply, type TakenRequest } from "./fake-native.js";

const tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-native-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const TOOLS: ToolSpec[] = [
  { type: "function", function: { name: "view_file_at", description: "show a file", parameters: { type: "object", properties: { path: { type: "string" } } } } },
];

/** A conversation one tool call in: system prompt, task, the model's call, the tool's result. */
const CONVERSATION: ChatMessage[] = [
  { role: "system", content: "You resolve merges." },
  { role: "user", content: "resolve it" },
  { role: "assistant", content: "looking", tool_calls: [{ id: "call_1", type: "function", function: { name: "view_file_at", arguments: '{"path":"a.py"}' } }] },
  { role: "tool", tool_call_id: "call_1", content: "print(1)" },
];

/** Whether a request is a client's preflight check (which is never cached, and spends no sample's tokens). */
const isCheck = (t: TakenRequest): boolean => JSON.stringify(t.body).includes(CHECK_PROMPT);

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({ messages: CONVERSATION, tools: TOOLS, temperature: 0, ...extra });

describe("the anthropic provider (Messages API)", () => {
  it("sends the conversation as Messages with cache marks, and maps tool use and the prompt cache's tokens back", async () => {
    const server = await fakeUpstream([
      { status: 529, headers: { "retry-after-ms": "1" }, body: { type: "error", error: { type: "overloaded_error", message: "overloaded" } } },
      { body: anthropicMessage({ text: "next", tools: [{ id: "toolu_2", name: "view_file_at", input: { path: "b.py" } }] }, { input: 5, output: 9, cacheRead: 100, cacheWrite: 20 }) },
    ]);
    try {
      const model = lookupModel("anthropic/claude-test", { baseURL: server.url, apiKey: "sk-ant-test", maxRetries: 2 });
      expect(model.model).toBe("anthropic/claude-test");
      const reply = await model.complete(request({ max_tokens: 300 }));
      expect(reply.message).toEqual({
        role: "assistant",
        content: "next",
        tool_calls: [{ id: "toolu_2", type: "function", function: { name: "view_file_at", arguments: '{"path":"b.py"}' } }],
      });
      expect(reply.finish_reason).toBe("tool_calls");
      // Anthropic counts the cache's tokens apart from input_tokens: the prompt was 5 + 100 + 20 tokens.
      expect(reply.usage).toEqual({ prompt_tokens: 125, completion_tokens: 9, cache_read_tokens: 100, cache_write_tokens: 20 });
      expect(server.taken).toHaveLength(2);
      const sent = server.taken[1];
      expect(sent?.path).toBe("/v1/messages");
      // The SDK sends the key as x-api-key or as a bearer token, by version.
      expect(`${sent?.headers["x-api-key"] ?? ""} ${sent?.headers.authorization ?? ""}`).toContain("sk-ant-test");
      expect(sent?.body).toMatchObject({
        model: "claude-test",
        stream: true,
        max_tokens: 300,
        temperature: 0,
        system: [{ type: "text", text: "You resolve merges.", cache_control: { type: "ephemeral" } }],
        tools: [{ name: "view_file_at", description: "show a file", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } }],
        messages: [
          { role: "user", content: [{ type: "text", text: "resolve it" }] },
          { role: "assistant", content: [{ type: "text", text: "looking" }, { type: "tool_use", id: "call_1", name: "view_file_at", input: { path: "a.py" } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "print(1)", cache_control: { type: "ephemeral" } }] },
        ],
      });
    } finally {
      await server.close();
    }
  });

  it("answers a second identical request from the response cache, apart from the other providers at the same address", async () => {
    const server = await fakeUpstream([{ body: anthropicMessage({ text: "cached answer" }) }]);
    try {
      const cache = new ResponseCache(path.join(tmp, "cache-anthropic"));
      const first = await lookupModel("anthropic/claude-test", { baseURL: server.url, apiKey: "k", cache }).complete(request());
      const again = await lookupModel("anthropic/claude-test", { baseURL: server.url, apiKey: "k", cache }).complete(request());
      expect(first.usage.cached).toBeUndefined();
      expect(again).toEqual({ ...first, usage: { prompt_tokens: 0, completion_tokens: 0, cached: true } });
      expect(server.taken).toHaveLength(1);
      // The same model name through the Responses API at the same address is another endpoint: not answered from the cache.
      const other = fakeUpstream([{ body: responsesReply({ text: "from responses" }) }]);
      const responses = await other;
      try {
        const reply = await lookupModel("openai-responses/claude-test", { baseURL: `${responses.url}/v1`, apiKey: "k", cache }).complete(request());
        expect(reply.message.content).toBe("from responses");
      } finally {
        await responses.close();
      }
    } finally {
      await server.close();
    }
  });

  it("says in one line when the key is refused, missing, or the endpoint is unreachable; check() names the endpoint", async () => {
    const server = await fakeUpstream([{ status: 401, body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } } }]);
    try {
      const err = await lookupModel("anthropic/claude-test", { baseURL: server.url, apiKey: "wrong" }).check?.().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GitGoodError);
      expect((err as GitGoodError).code).toBe("MODEL_AUTH");
      expect((err as GitGoodError).message).toContain(`(endpoint ${server.url})`);
      expect((err as GitGoodError).message).not.toContain("\n");
      expect(server.taken[0]?.body).toMatchObject({ messages: [{ role: "user", content: CHECK_PROMPT }] });
      expect(server.taken).toHaveLength(1);
    } finally {
      await server.close();
    }
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      await expect(lookupModel("anthropic/claude-test").complete(request())).rejects.toMatchObject({ code: "MODEL_AUTH", message: expect.stringMatching(/ANTHROPIC_API_KEY/) });
    } finally {
      process.env.ANTHROPIC_API_KEY = saved;
    }
    const dead = (await deadEndpoint()).replace(/\/v1$/, "");
    await expect(lookupModel("anthropic/claude-test", { baseURL: dead, apiKey: "k", maxRetries: 0 }).check?.()).rejects.toMatchObject({ code: "MODEL_UNREACHABLE" });
  });

  it("stops a request that hangs as soon as its signal is aborted", async () => {
    const server = await fakeUpstream([{ after: NEVER, body: {} }]);
    try {
      const controller = new AbortController();
      const pending = lookupModel("anthropic/claude-test", { baseURL: server.url, apiKey: "k" }).complete(request({ signal: controller.signal }));
      const deadline = Date.now() + 10_000;
      while (server.taken.length === 0 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
      controller.abort();
      await expect(pending).rejects.toMatchObject({ code: "ABORTED" });
    } finally {
      await server.close();
    }
  });
});

describe("the openai-responses provider (Responses API)", () => {
  it("sends the conversation as Responses items, and maps function calls and cached tokens back", async () => {
    const server = await fakeUpstream([
      { status: 500, headers: { "retry-after-ms": "1" }, body: { error: { message: "busy" } } },
      { body: responsesReply({ calls: [{ call_id: "call_9", name: "view_file_at", arguments: '{"path":"c.py"}' }] }, { input: 40, output: 6, cacheRead: 32 }) },
    ]);
    try {
      const model = lookupModel("openai-responses/gpt-test", { baseURL: `${server.url}/v1`, apiKey: "sk-test", maxRetries: 1 });
      const reply = await model.complete(request({ max_tokens: 200, json: true }));
      expect(reply.message).toEqual({
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_9", type: "function", function: { name: "view_file_at", arguments: '{"path":"c.py"}' } }],
      });
      expect(reply.finish_reason).toBe("tool_calls");
      // OpenAI counts cached tokens within input_tokens.
      expect(reply.usage).toEqual({ prompt_tokens: 40, completion_tokens: 6, cache_read_tokens: 32 });
      const sent = server.taken[1];
      expect(sent?.path).toBe("/v1/responses");
      expect(sent?.headers.authorization).toBe("Bearer sk-test");
      expect(sent?.body).toMatchObject({
        model: "gpt-test",
        stream: true,
        store: false,
        instructions: "You resolve merges.",
        max_output_tokens: 200,
        temperature: 0,
        text: { format: { type: "json_object" } },
        tools: [{ type: "function", name: "view_file_at", description: "show a file", parameters: TOOLS[0]?.function.parameters }],
        input: [
          { role: "user", content: "resolve it" },
          { role: "assistant", content: "looking" },
          { type: "function_call", call_id: "call_1", name: "view_file_at", arguments: '{"path":"a.py"}' },
          { type: "function_call_output", call_id: "call_1", output: "print(1)" },
        ],
      });
    } finally {
      await server.close();
    }
  });

  it("answers a second identical request from the response cache, and says in one line when the key is refused", async () => {
    const server = await fakeUpstream([{ body: responsesReply({ text: "once" }) }, { status: 401, body: { error: { message: "Incorrect API key provided" } } }]);
    try {
      const cache = new ResponseCache(path.join(tmp, "cache-responses"));
      const model = lookupModel("openai-responses/gpt-test", { baseURL: `${server.url}/v1`, apiKey: "k", cache });
      expect((await model.complete(request())).message.content).toBe("once");
      expect((await model.complete(request())).usage.cached).toBe(true);
      expect(server.taken).toHaveLength(1);
      const err = await model.check?.().catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "MODEL_AUTH", message: expect.stringContaining(`(endpoint ${server.url}/v1/responses)`) });
    } finally {
      await server.close();
    }
  });
});

describe("the native providers stream", () => {
  it.for([
    ["anthropic/claude-test", "", anthropicMessage({ text: "a long answer" }, { input: 30, output: 4000, cacheRead: 10 }), { prompt_tokens: 40, completion_tokens: 4000, cache_read_tokens: 10 }],
    ["openai-responses/gpt-test", "/v1", responsesReply({ text: "a long answer" }, { input: 30, output: 4000 }), { prompt_tokens: 30, completion_tokens: 4000 }],
  ] as const)("%s: an answer still coming after the client's time limit is taken whole, its tokens from the final usage", async ([name, v1, body, usage]) => {
    // The answer's first event comes at once and the rest 2.5 s later: a whole (unstreamed) answer would
    // come after the client's 1 s limit, and time out.
    const server = await fakeUpstream([{ body, writingMs: 2500 }]);
    try {
      const reply = await lookupModel(name, { baseURL: `${server.url}${v1}`, apiKey: "k", maxRetries: 0, timeoutMs: 1000 }).complete(request());
      expect(reply.message).toEqual({ role: "assistant", content: "a long answer" });
      expect(reply.usage).toEqual(usage);
      expect(server.taken).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe("gitgood run with native providers", () => {
  let fx: Fixture;
  let samples: Sample[];
  beforeAll(async () => {
    ({ fx, samples } = await buildRunFixture());
  });
  afterAll(() => fx.remove());

  it("records the tokens and the configured cost of an anthropic agent and an openai-responses judge, and answers a second run from the cache", async () => {
    const chain = samples.find((s) => s.sample_type === "file_commit_chain");
    if (!chain) throw new Error("the run fixture has no file-commit chain");
    const file = path.join(fx.scratch("data"), "samples.jsonl");
    writeFileSync(file, `${sampleToJson(chain)}\n`);
    const config = path.join(fx.scratch("data"), "gitgood.config.yaml");
    writeFileSync(config, 'prices:\n  "anthropic/claude-run": { input: 3, output: 15 }\n  "openai-responses/judge-run": { input: 1, output: 2 }\n');
    const agentUpstream = await fakeUpstream([{ body: anthropicMessage({ text: "I am done." }, { input: 100, output: 10, cacheRead: 800, cacheWrite: 100 }) }]);
    const judgeUpstream = await fakeUpstream([{ body: responsesReply({ text: JSON.stringify({ better: "1", reason: "cleaner" }) }, { input: 50, output: 5 }) }]);
    const env = { GITGOOD_SANDBOX_ROOT: fx.scratch("sandboxes"), ANTHROPIC_BASE_URL: agentUpstream.url, OPENAI_BASE_URL: `${judgeUpstream.url}/v1` };
    const args = (out: string) =>
      ["run", file, "--repo", fx.dir, "--agent", "llm", "--model", "anthropic/claude-run", "--scenario", "IR", "--judge", "openai-responses/judge-run", "--config", config, "--out", out, "--json"];
    try {
      const first = path.join(fx.scratch("run"), "first");
      const r = await gitgood(args(first), { env });
      expect(r.code, r.stderr).toBe(0);
      // run.json names the endpoint of the agent's provider: ANTHROPIC_BASE_URL, not OPENAI_BASE_URL.
      const run = JSON.parse(readFileSync(path.join(first, "run.json"), "utf8")) as { identity: { model: { name: string; endpoint: string | null } } };
      expect(run.identity.model).toMatchObject({ name: "anthropic/claude-run", endpoint: agentUpstream.url });
      const [record] = readFileSync(path.join(first, "results.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as ResultRecord);
      const agentCalls = agentUpstream.taken.filter((t) => t.path === "/v1/messages" && !isCheck(t)).length;
      const judgeCalls = judgeUpstream.taken.filter((t) => !isCheck(t)).length;
      expect(agentCalls).toBeGreaterThan(0);
      expect(record?.agent).toBe("llm:anthropic/claude-run");
      // Every prompt token counts, those the prompt cache read and wrote included: 1000 a call.
      expect(record?.tokens).toEqual({ prompt: 1000 * agentCalls, completion: 10 * agentCalls });
      expect(record?.cost_usd).toBeCloseTo(((1000 * 3 + 10 * 15) * agentCalls) / 1e6, 6);
      expect(record?.judge_tokens).toEqual({ prompt: 50 * judgeCalls, completion: 5 * judgeCalls });
      expect(record?.judge_cost_usd).toBeCloseTo(((50 * 1 + 5 * 2) * judgeCalls) / 1e6, 6);
      const trajectory = readFileSync(path.join(first, record?.trajectory ?? ""), "utf8");
      expect(trajectory).toMatch(/"cache_read_tokens": ?800/);

      // The same run again into another directory: every answer comes from the response cache.
      const second = path.join(fx.scratch("run"), "second");
      const again = await gitgood(args(second), { env });
      expect(again.code, again.stderr).toBe(0);
      const [cached] = readFileSync(path.join(second, "results.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as ResultRecord);
      expect(cached?.tokens).toEqual({ prompt: 0, completion: 0 });
      expect(cached?.cache_hits).toBe(agentCalls + judgeCalls);
      expect(agentUpstream.taken.filter((t) => !isCheck(t))).toHaveLength(agentCalls);
      expect(judgeUpstream.taken.filter((t) => !isCheck(t))).toHaveLength(judgeCalls);
    } finally {
      await agentUpstream.close();
      await judgeUpstream.close();
    }
  });
});
