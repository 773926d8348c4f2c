import { getEventListeners } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { GitGoodError } from "../../src/errors.js";
import { lookupModel } from "../../src/model/lookup.js";
import { OpenAIChatClient } from "../../src/model/openai.js";
import { completion, fakeOpenAI } from "../helpers/fake-openai.js";

const ask = { messages: [{ role: "user" as const, content: "x" }] };

/** An endpoint on 127.0.0.1 that takes requests and never answers; it tells when a request came and when its connection closed. */
async function silentServer(): Promise<{ url: string; requested: Promise<void>; closed: Promise<void>; close: () => Promise<void> }> {
  let requested!: () => void;
  let closed!: () => void;
  const waits = { requested: new Promise<void>((r) => (requested = r)), closed: new Promise<void>((r) => (closed = r)) };
  const server = http.createServer((req) => {
    req.socket.on("close", closed);
    req.resume();
    req.on("end", requested);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    ...waits,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("OpenAIChatClient against a local fake endpoint", () => {
  it("retries a 429 and a 500, then returns tool calls and usage", async () => {
    const server = await fakeOpenAI([
      { status: 429, headers: { "retry-after-ms": "5" }, body: { error: { message: "slow down" } } },
      { status: 500, headers: { "retry-after": "0.005" }, body: { error: { message: "oops" } } },
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

  it("gives up after maxRetries and reports the last status", async () => {
    const server = await fakeOpenAI([{ status: 429, headers: { "retry-after-ms": "1" }, body: { error: { message: "slow down" } } }]);
    try {
      const client = new OpenAIChatClient({ model: "m", baseURL: server.url, apiKey: "k", maxRetries: 2 });
      await expect(client.complete(ask)).rejects.toMatchObject({ code: "MODEL_RATE_LIMITED" });
      expect(server.requests).toHaveLength(3);
    } finally {
      await server.close();
    }
  });

  it("leaves no abort listener on the caller's signal, through a long retry loop and many requests", async () => {
    const server = await fakeOpenAI([
      ...Array.from({ length: 14 }, () => ({ status: 500, headers: { "retry-after-ms": "0" }, body: { error: { message: "busy" } } })),
      { body: completion({ content: "done" }) },
    ]);
    try {
      const client = new OpenAIChatClient({ model: "m", baseURL: server.url, apiKey: "k", maxRetries: 20 });
      const controller = new AbortController();
      const reply = await client.complete({ ...ask, signal: controller.signal });
      expect(reply.message.content).toBe("done");
      for (let i = 0; i < 12; i++) await client.complete({ ...ask, signal: controller.signal });
      expect(server.requests).toHaveLength(27);
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it("turns a refused key into a MODEL_AUTH error without retrying, and obeys x-should-retry: false", async () => {
    const server = await fakeOpenAI([
      { status: 401, body: { error: { message: "bad key" } } },
      { status: 503, headers: { "x-should-retry": "false" }, body: { error: { message: "down for good" } } },
    ]);
    try {
      const client = new OpenAIChatClient({ model: "m", baseURL: server.url, apiKey: "k", maxRetries: 3 });
      const err = await client.complete(ask).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GitGoodError);
      expect((err as GitGoodError).code).toBe("MODEL_AUTH");
      expect(server.requests).toHaveLength(1);
      await expect(client.complete(ask)).rejects.toMatchObject({ code: "MODEL_ERROR", data: { status: 503 } });
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it("reports an unreachable endpoint", async () => {
    const client = new OpenAIChatClient({ model: "m", baseURL: "http://127.0.0.1:9/v1", apiKey: "k", maxRetries: 0 });
    const err = await client.complete(ask).catch((e: unknown) => e);
    expect((err as GitGoodError).code).toBe("MODEL_UNREACHABLE");
  });

  it("sends its own temperature when a request names none, and the request's when it does", async () => {
    const server = await fakeOpenAI([{ body: completion({ content: "ok" }) }]);
    try {
      const client = new OpenAIChatClient({ model: "m", baseURL: server.url, apiKey: "k", temperature: 0.7 });
      await client.complete(ask);
      await client.complete({ ...ask, temperature: 0 });
      expect(server.requests.map((r) => (r as { temperature?: number }).temperature)).toEqual([0.7, 0]);
    } finally {
      await server.close();
    }
  });
});

describe("aborting a request", () => {
  it("stops a request the server never answers: it rejects with ABORTED and the connection is closed", { timeout: 15_000 }, async () => {
    const server = await silentServer();
    try {
      const client = new OpenAIChatClient({ model: "m", baseURL: server.url, apiKey: "k", maxRetries: 4, timeoutMs: 600_000 });
      const controller = new AbortController();
      const pending = client.complete({ ...ask, signal: controller.signal });
      await server.requested;
      controller.abort();
      const err = await pending.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GitGoodError);
      expect(err).toMatchObject({ code: "ABORTED", data: { model: "m" } });
      await server.closed;
    } finally {
      await server.close();
    }
  });

  it("stops the wait before a retry without sending the retry", { timeout: 15_000 }, async () => {
    const server = await fakeOpenAI([{ status: 429, headers: { "retry-after-ms": "50000" }, body: { error: { message: "slow down" } } }]);
    try {
      const client = new OpenAIChatClient({ model: "m", baseURL: server.url, apiKey: "k", maxRetries: 4 });
      const controller = new AbortController();
      // The client waits to retry once the request's abort listener is gone (the 429 was read) and the wait's
      // has taken its place: two listeners again (the wait's and the link to the request's own signal) after
      // the second removal (the first ends the wait for the SDK's import).
      let removed = 0;
      const remove = controller.signal.removeEventListener.bind(controller.signal);
      controller.signal.removeEventListener = (...args: Parameters<AbortSignal["removeEventListener"]>) => {
        removed++;
        remove(...args);
      };
      const pending = client.complete({ ...ask, signal: controller.signal });
      const deadline = Date.now() + 10_000;
      while (!(removed >= 2 && server.requests.length === 1 && getEventListeners(controller.signal, "abort").length === 2)) {
        if (Date.now() > deadline) throw new Error("the client never started waiting to retry");
        await new Promise((r) => setTimeout(r, 10));
      }
      controller.abort();
      await expect(pending).rejects.toMatchObject({ code: "ABORTED" });
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("sends nothing when the signal is already aborted", async () => {
    const server = await fakeOpenAI([{ body: completion({ content: "ok" }) }]);
    try {
      const client = new OpenAIChatClient({ model: "m", baseURL: server.url, apiKey: "k" });
      await expect(client.complete({ ...ask, signal: AbortSignal.abort() })).rejects.toMatchObject({ code: "ABORTED" });
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});

describe("lookupModel", () => {
  it("sends the model name as given, case included, to the endpoint it is given", async () => {
    const server = await fakeOpenAI([{ body: completion({ content: "ok" }) }]);
    try {
      const client = lookupModel(" Qwen/Qwen2.5-72B-Instruct ", { baseURL: server.url, apiKey: "k", maxRetries: 0 });
      expect(client.model).toBe("Qwen/Qwen2.5-72B-Instruct");
      expect((await client.complete(ask)).message.content).toBe("ok");
      expect((server.requests[0] as { model: string }).model).toBe("Qwen/Qwen2.5-72B-Instruct");
    } finally {
      await server.close();
    }
  });

  it("refuses an empty name", () => {
    expect(() => lookupModel("  ")).toThrow(expect.objectContaining({ code: "BAD_OPTION" }));
  });
});
