import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GitGoodError } from "../../src/errors.js";
import { ResponseCache } from "../../src/model/cache.js";
import { lookupModel } from "../../src/model/lookup.js";
import { CHECK_PROMPT } from "../../src/model/openai.js";
import type { ChatMessage, ModelRequest, ToolSpec } from "../../src/model/types.js";
import { NEVER, deadEndpoint } from "../helpers/fake-openai.js";
import { anthropicMessage, fakeUpstream, responsesReply } from "./fake-native.js";

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

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({ messages: CONVERSATION, tools: TOOLS, temperature: 0, ...extra });

describe("the anthropic provider (Messages API)", () => {
  it("sends the conversation as Messages with cache marks, and maps tool use and the prompt cache's tokens back", async () => {
    const server = await fakeUpstream([
      { status: 529, headers: { "retry-after-ms": "1" }, body: { type: "error", error: { type: "overloaded_error", message: "overloaded" } } },
      { body: anthropicMessage({ text: "next", tools: [{ id: "toolu_2", name: "view_file_at", input: { path: "b.py" } }] }, { input: 5, output: 9, cacheRead: 100, cacheWrite: 20 }) },
    ]);
    try {
      const model = lookupModel("anthropic/claude-test", { baseURL: server.url, apiKey: "sk-ant-test", maxRetries: 2 });
      expect(model.model).toBe("claude-test");
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
