import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleToJson, type Sample } from "../../src/dataset/sample.js";
import { ResponseCache } from "../../src/model/cache.js";
import { lookupModel } from "../../src/model/lookup.js";
import { listProviders, registerProvider } from "../../src/model/providers/index.js";
import { ScriptedModelClient } from "../../src/model/scripted.js";
import type { ModelRequest } from "../../src/model/types.js";
import { gitgood } from "../helpers/cli.js";
import { completion, fakeOpenAI } from "../helpers/fake-openai.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture } from "../helpers/runs.js";

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-providers-"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const ask = (...answers: string[]): ModelRequest => ({
  messages: [{ role: "user", content: "q" }, ...answers.flatMap((a) => [{ role: "assistant" as const, content: a }, { role: "user" as const, content: "more" }])],
  temperature: 0,
});

describe("model providers", () => {
  it("lists the built-in providers", () => {
    expect(listProviders().map((p) => p.name)).toEqual(expect.arrayContaining(["openai", "scripted"]));
  });

  it("sends a name without a provider's prefix to the OpenAI-compatible endpoint whole, and strips 'openai/'", async () => {
    const server = await fakeOpenAI([{ body: completion({ content: "a" }) }, { body: completion({ content: "b" }) }, { body: completion({ content: "c" }) }]);
    try {
      for (const name of ["gpt-4o", "Qwen/Qwen2.5-72B-Instruct", "openai/gpt-4o"]) {
        await lookupModel(name, { baseURL: server.url, apiKey: "k" }).complete(ask());
      }
      expect(server.requests.map((r) => (r as { model: string }).model)).toEqual(["gpt-4o", "Qwen/Qwen2.5-72B-Instruct", "gpt-4o"]);
    } finally {
      await server.close();
    }
  });

  it("answers scripted/FILE by the turn of each conversation, and never caches it", async () => {
    const file = path.join(tmp, "replies.json");
    writeFileSync(file, JSON.stringify(["first", { tool_calls: [{ name: "finish", arguments: { answer: "x" } }] }]));
    const cache = new ResponseCache(path.join(tmp, "cache"));
    const model = lookupModel(`scripted/${file}`, { cache });
    expect(model.model).toBe(`scripted/${file}`);
    expect((await model.complete(ask())).message.content).toBe("first");
    expect((await model.complete(ask())).message.content).toBe("first"); // a new conversation starts at its first reply
    expect((await model.complete(ask("first"))).message.tool_calls?.[0]?.function).toEqual({ name: "finish", arguments: '{"answer":"x"}' });
    await expect(model.complete(ask("first", "second"))).rejects.toMatchObject({ code: "MODEL_ERROR" });
    expect(readdirSync(tmp)).not.toContain("cache");
  });

  it("refuses a scripted file that is missing or not a list of replies, in one line", () => {
    const bad = path.join(tmp, "bad.json");
    writeFileSync(bad, JSON.stringify({ reply: "x" }));
    expect(() => lookupModel(`scripted/${bad}`)).toThrow(/is not a JSON array of replies/);
    expect(() => lookupModel(`scripted/${path.join(tmp, "nope.json")}`)).toThrow(/cannot read/);
    expect(() => lookupModel("scripted/")).toThrow(/no model after it/);
  });

  it("keeps the answers of two providers apart in the response cache", async () => {
    const cache = new ResponseCache(path.join(tmp, "shared-cache"));
    registerProvider({
      name: "echo-a",
      description: "test provider",
      create: (model) => new ScriptedModelClient(["from a"], model),
      cacheEndpoint: () => "echo-a:",
      configuredEndpoint: () => null,
    });
    registerProvider({
      name: "echo-b",
      description: "test provider",
      create: (model) => new ScriptedModelClient(["from b"], model),
      cacheEndpoint: () => "echo-b:",
      configuredEndpoint: () => null,
    });
    expect((await lookupModel("echo-a/m", { cache }).complete(ask())).message.content).toBe("from a");
    expect((await lookupModel("echo-b/m", { cache }).complete(ask())).message.content).toBe("from b");
    // A second client of the first provider (whose script would fail) is answered from the cache.
    expect((await lookupModel("echo-a/m", { cache }).complete(ask())).usage.cached).toBe(true);
    expect(() => registerProvider({ name: "echo-a", description: "", create: () => new ScriptedModelClient([]), cacheEndpoint: () => null, configuredEndpoint: () => null })).toThrow(/already registered/);
  });
});

describe("gitgood run with a scripted judge", () => {
  let fx: Fixture;
  let samples: Sample[];
  beforeAll(async () => {
    ({ fx, samples } = await buildRunFixture());
  });
  afterAll(() => fx.remove());

  it("judges through scripted/FILE without any endpoint", async () => {
    const chain = samples.find((s) => s.sample_type === "file_commit_chain");
    if (!chain) throw new Error("the run fixture has no file-commit chain");
    const file = path.join(fx.scratch("data"), "samples.jsonl");
    writeFileSync(file, `${sampleToJson(chain)}\n`);
    const replies = path.join(fx.scratch("data"), "judge.json");
    writeFileSync(replies, JSON.stringify([JSON.stringify({ better: "1", reason: "the first is cleaner" })]));
    const out = path.join(fx.scratch("run"), "run");
    const r = await gitgood(["run", file, "--repo", fx.dir, "--agent", "keep", "--scenario", "IR", "--judge", `scripted/${replies}`, "--out", out, "--json"], {
      env: { GITGOOD_SANDBOX_ROOT: fx.scratch("sandboxes") },
    });
    expect(r.code, r.stderr).toBe(0);
    const records = readFileSync(path.join(out, "results.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { status: string; scores: unknown });
    expect(records).toHaveLength(1);
    expect(records[0]?.status).toBe("success");
    expect(JSON.stringify(records[0]?.scores)).toContain("the first is cleaner");
  });
});
