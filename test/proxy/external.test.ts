import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shellQuote } from "../../src/agents/mcp-config.js";
import { sampleToJson, type MergeSample, type Sample } from "../../src/dataset/sample.js";
import { bwrapUnavailable } from "../../src/sandbox/isolation.js";
import { gitgood } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { recordsIn, trajectoryOf } from "../helpers/mcp.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";
import { fakeUpstream, type FakeUpstream } from "./fake-upstream.js";

// The agent is a node script; it runs through the built CLI (npm run build first).
const AGENT = path.join(path.dirname(fileURLToPath(import.meta.url)), "agents", "asks-model.mjs");
const GEMINI_AGENT = path.join(path.dirname(AGENT), "asks-gemini.mjs");
const USER_KEY = "sk-user-key-never-shown";

let fx: Fixture;
let easy: MergeSample;
let dirs: ReturnType<typeof tempDirs>;
let samplesFile: string;
let upstream: FakeUpstream;

beforeAll(async () => {
  let samples: Sample[];
  ({ fx, samples } = await buildRunFixture());
  easy = samples.find((s): s is MergeSample => s.sample_type === "merge" && s.difficulty === "easy") as MergeSample;
  dirs = tempDirs();
  samplesFile = `${dirs.out}-samples.jsonl`;
  writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
  const gemini = { candidates: [{ content: { role: "model", parts: [{ text: "take ours" }] }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 300, candidatesTokenCount: 20, totalTokenCount: 320 } };
  upstream = await fakeUpstream((req) =>
    req.path.includes(":generateContent")
      ? { json: gemini }
      : {
          events: [
            { data: { choices: [{ index: 0, delta: { role: "assistant", content: "take theirs" }, finish_reason: "stop" }] } },
            { data: { choices: [], usage: { prompt_tokens: 400, completion_tokens: 100 } } },
          ],
          done: true,
        },
  );
});
afterAll(async () => {
  await upstream.close();
  dirs.cleanup();
  fx.remove();
});

const noBwrap = bwrapUnavailable();

describe("an external agent's model calls through the run's proxy", () => {
  it.for([
    ["namespace", noBwrap !== null],
    ["none", false],
  ] as const)("are recorded as model turns with tokens and cost (isolation %s)", async ([mode, skip], ctx) => {
    if (skip) ctx.skip();
    const out = `${dirs.out}-${mode}`;
    const command = `${shellQuote(process.execPath)} ${shellQuote(AGENT)}`;
    const r = await gitgood(
      ["run", samplesFile, "--ids", easy.id, "--repo", fx.dir, "--agent", "command", "--command", command, "--isolation", mode,
        "--allow-read", path.dirname(AGENT), "--pass-env", "GITGOOD_TEST_UPSTREAM", "--price-in", "2", "--price-out", "8", "--timeout", "40", "--out", out, "--json"],
      { env: { OPENAI_BASE_URL: upstream.url, OPENAI_API_KEY: USER_KEY, GITGOOD_TEST_UPSTREAM: `${upstream.url}/chat/completions` } },
    );
    const record = recordsIn(out)[`${easy.id}.MCR`];
    expect(r.code, `${r.stderr}\n${JSON.stringify(record)}\n${JSON.stringify(trajectoryOf(out, record).events)}`).toBe(0);
    expect(record).toMatchObject({ status: "success", tokens: { prompt: 400, completion: 100 }, cost_usd: (400 * 2 + 100 * 8) / 1e6 });
    const events = trajectoryOf(out, record).events as Array<{ type: string; text?: string; message?: { content: string }; usage?: unknown }>;
    expect(events.filter((e) => e.type === "model")).toMatchObject([{ message: { role: "assistant", content: "take theirs" }, usage: { prompt_tokens: 400, completion_tokens: 100 } }]);
    const output = events.find((e) => e.type === "note" && e.text?.startsWith("command exited with code 0"))?.text ?? "";
    expect(output).toContain("model: 200 streamed");
    expect(output).toMatch(/key: gitgood-[0-9a-f]{48}\n/);
    expect(output).not.toContain(USER_KEY);
    const viaProxy = upstream.seen.filter((s) => s.headers.authorization !== undefined);
    expect(viaProxy.length).toBeGreaterThan(0);
    expect(viaProxy.every((s) => s.headers.authorization === `Bearer ${USER_KEY}`)).toBe(true);
    if (mode === "namespace") {
      // In the jail only the proxy is reachable: not the upstream on the host's loopback, not another machine.
      expect(output).toMatch(/upstream: failed E[A-Z]+/);
      expect(output).toMatch(/outside: failed E[A-Z]+/);
    } else {
      expect(output).toContain("upstream: reached 200");
    }
  });

  it("reach the proxy through the Gemini API with GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY, in the jail", async (ctx) => {
    if (noBwrap) ctx.skip();
    const out = `${dirs.out}-gemini`;
    const command = `${shellQuote(process.execPath)} ${shellQuote(GEMINI_AGENT)}`;
    const r = await gitgood(
      ["run", samplesFile, "--ids", easy.id, "--repo", fx.dir, "--agent", "command", "--command", command, "--allow-read", path.dirname(GEMINI_AGENT),
        "--price-in", "2", "--price-out", "8", "--timeout", "40", "--out", out, "--json"],
      { env: { GOOGLE_GEMINI_BASE_URL: upstream.origin, GEMINI_API_KEY: USER_KEY } },
    );
    const record = recordsIn(out)[`${easy.id}.MCR`];
    const events = trajectoryOf(out, record).events as Array<{ type: string; text?: string }>;
    expect(r.code, `${r.stderr}\n${JSON.stringify(events)}`).toBe(0);
    expect(record).toMatchObject({ status: "success", tokens: { prompt: 300, completion: 20 }, cost_usd: (300 * 2 + 20 * 8) / 1e6 });
    expect(events.filter((e) => e.type === "model").length).toBe(1);
    const output = events.find((e) => e.type === "note" && e.text?.startsWith("command exited with code 0"))?.text ?? "";
    expect(output).toContain("gemini: 200 take ours");
    expect(output).toMatch(/key: gitgood-[0-9a-f]{48}\n/);
    const viaProxy = upstream.seen.filter((s) => s.path.includes(":generateContent"));
    expect(viaProxy.length).toBe(1);
    expect(viaProxy[0]?.headers["x-goog-api-key"]).toBe(USER_KEY);
  });
});
