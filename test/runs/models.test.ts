import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/index.js";
import { sampleToJson, type ChainSample, type Sample } from "../../src/dataset/sample.js";
import { runConfig } from "../../src/runs/config.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import { ScriptedModelClient } from "../../src/testing.js";
import { gitgood } from "../helpers/cli.js";
import { countingOpenAI } from "../helpers/counting-openai.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture } from "../helpers/runs.js";

let fx: Fixture;
let samples: Sample[];
let samplesFile: string;
let sandboxes: string;
let n = 0;

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  samplesFile = path.join(fx.scratch("data"), "samples.jsonl");
  writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
  sandboxes = fx.scratch("sandboxes");
});
afterAll(() => fx.remove());

const readJsonl = (file: string): ResultRecord[] =>
  readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as ResultRecord);
const byScenario = (records: readonly ResultRecord[]) => Object.fromEntries(records.map((r) => [r.scenario, r])) as Record<string, ResultRecord>;
const newOut = () => path.join(fx.scratch(`run-${n++}`), "run");

/**
 * A counting endpoint and a response cache of its own (a later endpoint may get an earlier one's port).
 * `requests` are the agent's and the judges' requests; `checks` counts the model checks apart.
 */
async function endpoint(opts: Parameters<typeof countingOpenAI>[0] = {}) {
  const server = await countingOpenAI(opts);
  const env = { GITGOOD_SANDBOX_ROOT: sandboxes, GITGOOD_CACHE_DIR: fx.scratch(`cache-${n++}`), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "k" };
  return {
    server,
    env,
    get requests() {
      return server.requests;
    },
    /** The model checks before a run or a re-scoring (never answered from the cache), counted apart by the endpoint. */
    checks: () => server.checks.length,
  };
}
type Endpoint = Awaited<ReturnType<typeof endpoint>>;

/**
 * `gitgood run` of every sample with the llm agent, judged by the same model, one sample at a time (so
 * which of two identical requests comes first is fixed); returns the run directory and its records.
 */
async function llmRun(e: Endpoint, extra: string[] = [], out = newOut()) {
  const r = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "llm", "--model", "m", "--judge", "m", "--jobs", "1", "--out", out, ...extra], { env: e.env });
  expect(r.code, r.stderr).toBe(0);
  return { out, records: readJsonl(path.join(out, "results.jsonl")) };
}

/**
 * The requests of a run: 3 per attempt of the agent (its answer, then two nudges) and 2 per judged
 * history. The agent leaves IR and ICC alike (nothing done), so ICC's judge requests are IR's again:
 * with the cache, ICC's judge answers come from it.
 */
const ALL = 4 * 3 + 2 * 2;
const FRESH = ALL - 2;

describe("the response cache", () => {
  it("answers a second identical run from disk: no request, no tokens, the hits recorded; judge tokens and cost are counted", async () => {
    const e = await endpoint();
    try {
      const first = await llmRun(e, ["--price-in", "1", "--price-out", "2"]);
      expect(e.requests).toHaveLength(FRESH);
      const a = byScenario(first.records);
      expect(a.MCR).toMatchObject({ tokens: { prompt: 33, completion: 21 }, cost_usd: 0.000075, cache_hits: 0, judge_tokens: { prompt: 0, completion: 0 }, judge_cost_usd: 0, repeat: 0 });
      // The judge is the agent's model, so --price-in/--price-out price it too.
      expect(a.IR).toMatchObject({ cache_hits: 0, judge_tokens: { prompt: 22, completion: 14 }, judge_cost_usd: 0.00005 });
      expect(a.ICC).toMatchObject({ cache_hits: 2, judge_tokens: { prompt: 0, completion: 0 }, judge_cost_usd: 0 });

      const second = await llmRun(e, ["--price-in", "1", "--price-out", "2"]);
      expect(e.requests).toHaveLength(FRESH);
      const b = byScenario(second.records);
      for (const s of ["MCR", "IR", "ICC"]) {
        expect(b[s]).toMatchObject({ tokens: { prompt: 0, completion: 0 }, cost_usd: 0, judge_tokens: { prompt: 0, completion: 0 }, judge_cost_usd: 0 });
        expect(b[s]?.verdict).toBe(a[s]?.verdict);
      }
      expect([b.MCR?.cache_hits, b.IR?.cache_hits, b.ICC?.cache_hits]).toEqual([3, 5, 5]);
      const t = JSON.parse(readFileSync(path.join(second.out, b.IR!.trajectory!), "utf8"));
      expect(t.cache_hits).toBe(3);
      expect(t.events.filter((ev: { type: string; usage?: { cached?: boolean } }) => ev.type === "model" && ev.usage?.cached)).toHaveLength(3);
      expect(t.judge_usage).toEqual([{ model: "m", requests: 2, cache_hits: 2, prompt_tokens: 0, completion_tokens: 0 }]);
      const config = JSON.parse(readFileSync(path.join(second.out, "run.json"), "utf8"));
      expect(config.spec).toMatchObject({ temperature: null, max_tokens: null, seed: null, max_connections: null, cache: true });
      expect(config).not.toHaveProperty("models");

      // Each run checked its model (agent and judge are one model) once, at the endpoint.
      expect(e.checks()).toBe(2);

      // Re-scoring with the same judge costs nothing but the judge's check; without the cache the judge is asked again.
      expect((await gitgood(["score", first.out, "--judge", "m"], { env: e.env })).code).toBe(0);
      expect(e.requests).toHaveLength(FRESH);
      expect(e.checks()).toBe(3);
      const rescored = byScenario(readJsonl(path.join(first.out, "results.jsonl")));
      expect(rescored.IR).toMatchObject({ cache_hits: 2, judge_tokens: { prompt: 0, completion: 0 }, verdict: a.IR?.verdict });
      expect((await gitgood(["score", first.out, "--judge", "m", "--no-cache"], { env: e.env })).code).toBe(0);
      expect(e.requests).toHaveLength(FRESH + 4);
      expect(byScenario(readJsonl(path.join(first.out, "results.jsonl"))).ICC).toMatchObject({ cache_hits: 0, judge_tokens: { prompt: 22, completion: 14 } });
    } finally {
      await e.server.close();
    }
  });

  it("is bypassed by --no-cache and by a temperature above 0; --temperature, --max-tokens and --seed reach the endpoint and run.json", async () => {
    const e = await endpoint();
    try {
      await llmRun(e);
      expect(e.requests).toHaveLength(FRESH);
      await llmRun(e, ["--no-cache"]);
      expect(e.requests).toHaveLength(FRESH + ALL);
      const params = ["--temperature", "0.5", "--max-tokens", "64", "--seed", "3"];
      const { out } = await llmRun(e, params);
      await llmRun(e, params);
      expect(e.requests).toHaveLength(FRESH + 3 * ALL);
      for (const body of e.requests.slice(FRESH + ALL)) expect(body).toMatchObject({ temperature: 0.5, max_tokens: 64, seed: 3 });
      for (const body of e.requests.slice(0, FRESH + ALL)) expect(body).toMatchObject({ temperature: 0 });
      const config = JSON.parse(readFileSync(path.join(out, "run.json"), "utf8"));
      expect(config.identity.model).toMatchObject({ name: "m" });
      expect(config.identity.model).not.toHaveProperty("temperature");
      expect(config.identity.spec).toMatchObject({ temperature: 0.5, max_tokens: 64, seed: 3 });
      expect(config.spec).toMatchObject({ temperature: 0.5, max_tokens: 64, seed: 3, cache: true });
      // Other sampling parameters are another run.
      const again = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "llm", "--model", "m", "--judge", "m", "--out", out, "--temperature", "0.5"], { env: e.env });
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(/^gitgood: .* holds a run with other settings \(spec\.max_tokens: 64 -> none; spec\.seed: 3 -> none\)/);
    } finally {
      await e.server.close();
    }
  });

  it("takes a damaged entry for a miss and writes it again", async () => {
    const e = await endpoint();
    try {
      await llmRun(e);
      const dir = path.join(e.env.GITGOOD_CACHE_DIR, "responses");
      const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".json"));
      expect(files).toHaveLength(FRESH);
      for (const f of files) writeFileSync(path.join(dir, f), '{"format": 1, "model": "m", "reply": {');
      await llmRun(e);
      expect(e.requests).toHaveLength(2 * FRESH);
      await llmRun(e);
      expect(e.requests).toHaveLength(2 * FRESH);
    } finally {
      await e.server.close();
    }
  });
});

describe("--max-connections", () => {
  it("1 never has two requests in flight, across parallel samples and judges; without it they overlap", async () => {
    const e = await endpoint({ holdMs: 150 });
    try {
      await llmRun(e, ["--jobs", "4", "--max-connections", "1", "--no-cache"]);
      expect(e.requests).toHaveLength(ALL);
      expect(e.server.maxInFlight()).toBe(1);
      await llmRun(e, ["--jobs", "4", "--no-cache"]);
      expect(e.server.maxInFlight()).toBeGreaterThan(1);
    } finally {
      await e.server.close();
    }
  });
});

describe("--repeats", () => {
  const run = (out: string, extra: string[] = []) =>
    gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "baseline", "--out", out, ...extra], { env: { GITGOOD_SANDBOX_ROOT: sandboxes } });

  it("runs every sample × scenario K times under keys #r with their repeat, and resumes", async () => {
    const out = newOut();
    const r = await run(out, ["--repeats", "3"]);
    expect(r.code, r.stderr).toBe(0);
    const records = readJsonl(path.join(out, "results.jsonl"));
    expect(records).toHaveLength(12);
    const chain = samples.find((s): s is ChainSample => s.sample_type === "file_commit_chain")!;
    const keys = records.filter((x) => x.sample_id === chain.id && x.scenario === "IR").map((x) => [x.key, x.repeat]);
    expect(keys.sort((x, y) => Number(x[1]) - Number(y[1]))).toEqual([
      [`${chain.id}.IR`, 0],
      [`${chain.id}.IR#1`, 1],
      [`${chain.id}.IR#2`, 2],
    ]);
    // Each repeat has its own trajectory, under a plain file name.
    const trajectories = new Set(records.map((x) => x.trajectory));
    expect(trajectories.size).toBe(12);
    for (const t of trajectories) expect(path.basename(t!)).toMatch(/^[A-Za-z0-9._~+-]+\.json$/);
    expect(readdirSync(path.join(out, "trajectories"))).toHaveLength(12);
    expect(JSON.parse(readFileSync(path.join(out, "run.json"), "utf8")).identity.spec).toEqual({ repeats: 3 });

    // Running it again does nothing; records removed from the results are run again, once.
    const again = await run(out, ["--repeats", "3"]);
    expect(again.stderr.match(/already done/g)).toHaveLength(12);
    const file = path.join(out, "results.jsonl");
    writeFileSync(file, readFileSync(file, "utf8").split("\n").filter((l) => !l.includes('#2"')).join("\n"));
    const resumed = await run(out, ["--repeats", "3"]);
    expect(resumed.stderr.match(/already done/g)).toHaveLength(8);
    const after = readJsonl(file);
    expect(after).toHaveLength(12);
    expect(new Set(after.map((x) => x.key)).size).toBe(12);

    // --repeats is part of the run's identity.
    const other = await run(out, ["--repeats", "2"]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/holds a run with other settings \(spec\.repeats: 3 -> 2\)/);
  });

  it("a run without --repeats records repeat 0 under the keys runs always had", async () => {
    const out = newOut();
    expect((await run(out)).code).toBe(0);
    const records = readJsonl(path.join(out, "results.jsonl"));
    expect(records.map((x) => x.key).sort()).toEqual(samples.flatMap((s) => (s.sample_type === "merge" ? [`${s.id}.MCR`] : [`${s.id}.IR`, `${s.id}.ICC`])).sort());
    expect(records.every((x) => x.repeat === 0)).toBe(true);
    expect(JSON.parse(readFileSync(path.join(out, "run.json"), "utf8")).identity).not.toHaveProperty("repeats");
  });

  it("with a model at temperature 0, each repeat asks on its own; running or re-scoring it again asks nothing", async () => {
    const e = await endpoint();
    try {
      const { out } = await llmRun(e, ["--repeats", "2"]);
      expect(e.requests).toHaveLength(2 * FRESH);
      const again = await llmRun(e, ["--repeats", "2"]);
      expect(e.requests).toHaveLength(2 * FRESH);
      expect(again.records.every((x) => (x.cache_hits ?? 0) >= 3 && x.tokens.prompt === 0)).toBe(true);
      expect((await gitgood(["score", out, "--judge", "m"], { env: e.env })).code).toBe(0);
      expect(e.requests).toHaveLength(2 * FRESH);
    } finally {
      await e.server.close();
    }
  });
});

describe("judge tokens and cost", () => {
  it("prices each judge model by name from modelPrices; a judge without a price makes the judges' cost unknown", async () => {
    const chain = samples.find((s): s is ChainSample => s.sample_type === "file_commit_chain")!;
    const verdict = JSON.stringify({ better: "1", reason: "r" });
    const judge = (name: string) => new ScriptedModelClient(Array(4).fill(verdict), name);
    const agent = createAgent("keep");
    const go = async (judges: ScriptedModelClient[]) => {
      const store = RunStore.open(newOut(), runConfig({ samples: ["t"], agent: agent.name }, (p) => p));
      const prices = { "judge-a": { input: 1, output: 2 }, "judge-b": { input: 3, output: 4 } };
      const summary = await runBenchmark({ samples: [chain], where: { repo: fx.dir }, agent, store, jobs: 1, judges, modelPrices: prices });
      return byScenario(summary.records);
    };
    const priced = await go([judge("judge-a"), judge("judge-b")]);
    // Each judge is asked twice per history (10 prompt and 5 completion tokens per scripted answer).
    expect(priced.IR).toMatchObject({ judge_tokens: { prompt: 40, completion: 20 }, judge_cost_usd: (20 * 1 + 10 * 2 + 20 * 3 + 10 * 4) / 1e6, cost_usd: null });
    const unpriced = await go([judge("judge-a"), judge("judge-c")]);
    expect(unpriced.IR).toMatchObject({ judge_tokens: { prompt: 40, completion: 20 }, judge_cost_usd: null });
  });
});

describe("model options", () => {
  it("refuse bad values with one line and exit 2", async () => {
    const cases: [string[], string][] = [
      [["run", samplesFile, "--repo", fx.dir, "--temperature", "3"], "gitgood: --temperature takes a number from 0 to 2, not '3'"],
      [["run", samplesFile, "--repo", fx.dir, "--max-tokens", "0"], "gitgood: --max-tokens must be at least 1, not 0"],
      [["run", samplesFile, "--repo", fx.dir, "--seed", "x"], "gitgood: --seed takes a whole number, not 'x'"],
      [["run", samplesFile, "--repo", fx.dir, "--max-connections", "0"], "gitgood: --max-connections must be at least 1, not 0"],
      [["run", samplesFile, "--repo", fx.dir, "--repeats", "0"], "gitgood: --repeats must be at least 1, not 0"],
      [["bench", fx.dir, "--repeats", "-1"], "gitgood: --repeats takes a whole number, not '-1'"],
      [["score", fx.dir, "--max-connections", "1.5"], "gitgood: --max-connections takes a whole number, not '1.5'"],
    ];
    for (const [args, message] of cases) {
      const r = await gitgood(args, { env: { GITGOOD_SANDBOX_ROOT: sandboxes } });
      expect([r.code, r.stderr.trim()]).toEqual([2, message]);
    }
  });
});
