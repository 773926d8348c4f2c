import { describe, expect, it } from "vitest";
import { OpenAIChatClient, ScriptedModelClient } from "../../src/agents/model.js";
import { GitGoodError } from "../../src/errors.js";
import { completion, fakeOpenAI } from "../helpers/fake-openai.js";

describe("OpenAIChatClient against a local fake endpoint", () => {
  it("retries a 429 and a 500, then returns tool calls and usage", async () => {
    const server = await fakeOpenAI([
      { status: 429, headers: { "retry-after-ms": "5" }, body: { error: { message: "slow down" } } },
      { status: 500, headers: { "retry-after-ms": "5" }, body: { error: { message: "oops" } } },
      { body: completion({ tool_calls: [{ name: "view_file_at", arguments: '{"relative_path_from_project_root":"a.py","reason":"look"}' }] }) },
    ]);
    try {
      const client = new OpenAIChatClient({ model: "local-model", baseURL: server.url, apiKey: "k", maxRetries: 3 });
      const reply = await client.complete({
        messages: [{ role: "user", content: "hi" }],
        tools: [{ type: "function", function: { name: "view_file_at", description: "d", parameters: { type: "object" } } }],
      });
      expect(server.requests).toHaveLength(3);
      expect((server.requests[2] as { model: string }).model).toBe("local-model");
      expect(reply.message.tool_calls?.[0]?.function.name).toBe("view_file_at");
      expect(reply.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7 });
    } finally {
      await server.close();
    }
  });

  it("turns a refused key into a MODEL_AUTH error without retrying", async () => {
    const server = await fakeOpenAI([{ status: 401, body: { error: { message: "bad key" } } }]);
    try {
      const client = new OpenAIChatClient({ model: "m", baseURL: server.url, apiKey: "k", maxRetries: 3 });
      const err = await client.complete({ messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GitGoodError);
      expect((err as GitGoodError).code).toBe("MODEL_AUTH");
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("reports an unreachable endpoint", async () => {
    const client = new OpenAIChatClient({ model: "m", baseURL: "http://127.0.0.1:9/v1", apiKey: "k", maxRetries: 0 });
    const err = await client.complete({ messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect((err as GitGoodError).code).toBe("MODEL_UNREACHABLE");
  });
});

describe("ScriptedModelClient", () => {
  it("answers from its script and records requests", async () => {
    const m = new ScriptedModelClient(["plain", { tool_calls: [{ name: "t", arguments: { a: 1 } }] }, (req) => `saw ${req.messages.length}`]);
    expect((await m.complete({ messages: [] })).message.content).toBe("plain");
    const second = await m.complete({ messages: [{ role: "user", content: "x" }] });
    expect(second.message.tool_calls?.[0]?.function).toEqual({ name: "t", arguments: '{"a":1}' });
    expect((await m.complete({ messages: [{ role: "user", content: "x" }, { role: "user", content: "y" }] })).message.content).toBe("saw 2");
    await expect(m.complete({ messages: [] })).rejects.toMatchObject({ code: "MODEL_ERROR" });
    expect(m.requests).toHaveLength(4);
  });
});

describe("long conversations", () => {
  it("elides the oldest tool results first and keeps the last one and the task", async () => {
    const { elideOldResults } = await import("../../src/agents/llm.js");
    const big = "x".repeat(1000);
    const messages = [
      { role: "system" as const, content: "s" },
      { role: "user" as const, content: "task" },
      { role: "tool" as const, tool_call_id: "a", content: big },
      { role: "tool" as const, tool_call_id: "b", content: big },
      { role: "tool" as const, tool_call_id: "c", content: big },
    ];
    elideOldResults(messages, 2200);
    expect(messages[2]?.content).toMatch(/^\[earlier output elided .*\(1000 characters\)/);
    expect(messages[3]?.content).toBe(big);
    expect(messages[4]?.content).toBe(big);
    expect(messages[1]?.content).toBe("task");
    elideOldResults(messages, 100);
    expect(messages[3]?.content).toMatch(/^\[earlier output elided/);
    expect(messages[4]?.content).toBe(big);
  });
});
