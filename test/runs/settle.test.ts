import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Agent } from "../../src/agents/agent.js";
import { createAgent } from "../../src/agents/index.js";
import { sampleToJson, type ChainSample, type Sample } from "../../src/dataset/sample.js";
import { OpenAIChatClient } from "../../src/model/openai.js";
import type { ModelRequest } from "../../src/model/types.js";
import { buildReport } from "../../src/report/summary.js";
import { GITGOOD_VERSION, runConfig, runJudges } from "../../src/runs/config.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import { gitgood } from "../helpers/cli.js";
import { NEVER, completion, deadEndpoint, fakeOpenAI } from "../helpers/fake-openai.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

let fx: Fixture;
let samples: Sample[];
let chain: ChainSample;
let dirs: ReturnType<typeof tempDirs>;

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  chain = samples.find((s): s is ChainSample => s.sample_type === "file_commit_chain") as ChainSample;
  dirs = tempDirs();
});
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

const byScenario = (records: readonly ResultRecord[]) => Object.fromEntries(records.map((r) => [r.scenario, r]));
const trajectory = (dir: string, r: ResultRecord | undefined) => JSON.parse(readFileSync(path.join(dir, r?.trajectory ?? ""), "utf8"));

describe("scorers fail apart from the agent", () => {
  it("a judge whose endpoint fails after the run's check leaves the verdict unjudged, records why, and is no agent error; gitgood score judges it later", async () => {
    // The endpoint passes the check before the run, then fails every request (and says not to retry).
    const failing = await fakeOpenAI([
      { body: completion({ content: "OK" }) },
      { status: 503, headers: { "x-should-retry": "false" }, body: { error: { message: "down" } } },
    ]);
    const down = new OpenAIChatClient({ model: "judge-down", baseURL: failing.url, apiKey: "k", maxRetries: 0 });
    const dir = `${dirs.out}-judge`;
    const agent = createAgent("keep");
    const store = RunStore.open(dir, runConfig({ samples: ["t"], agent: agent.name, where: { repo: fx.dir }, spec: { judges: ["judge-down"] } }, (p) => p));
    const summary = await runBenchmark({ samples: [chain], where: { repo: fx.dir }, agent, store, jobs: 1, spec: { timeout_s: 60, max_turns: 5 }, judges: [down] }).finally(
      failing.close,
    );
    expect(failing.requests.length).toBeGreaterThan(1);
    const ir = byScenario(summary.records).IR;
    expect(ir).toMatchObject({ status: "success", verdict: "unjudged", solved: null, error: null });
    expect(ir?.scores.checks).toMatchObject({ finished: true, tree_matches_tip: true });
    expect((ir?.scores.judge as { error: { code: string } }).error.code).toMatch(/^MODEL_/);
    const report = buildReport({ records: summary.records });
    expect(report.totals.find((r) => r.scenario === "IR")).toMatchObject({ success: 1, unjudged: 1, agent_errors: 0, infrastructure_errors: 0 });
    const eventsBefore = trajectory(dir, ir).events;

    // Re-scoring reads the saved final states: no agent runs, and the judge is asked again (both times:
    // `keep` leaves the original history, so without --no-cache the swapped question is the same one).
    const say = (better: string) => ({ body: completion({ content: JSON.stringify({ better, reason: "r" }) }) });
    const server = await fakeOpenAI([{ body: completion({ content: "OK" }) }, say("1"), say("2")]);
    try {
      const r = await gitgood(["score", dir, "--judge", "Judge/Model-7B", "--json", "--no-cache"], { env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "k" } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain("re-scored 1 attempt(s)");
      // The judge's check first, then its two questions.
      expect(server.requests.map((q) => (q as { model: string }).model)).toEqual(["Judge/Model-7B", "Judge/Model-7B", "Judge/Model-7B"]);
    } finally {
      await server.close();
    }
    const after = RunStore.read(dir);
    const rescored = byScenario(after.records).IR;
    expect(rescored).toMatchObject({ verdict: "solved", solved: true, duration_ms: ir?.duration_ms, started_at: ir?.started_at });
    expect(after.records).toHaveLength(summary.records.length);
    const t = trajectory(dir, rescored);
    expect(t.events).toEqual(eventsBefore);
    expect(t.scores.judge.judges).toEqual([{ judge: "Judge/Model-7B", wins_both: true }]);
    expect(runJudges(after.config)).toEqual(["Judge/Model-7B"]);
  });
});

describe("gitgood score", () => {
  let dir: string;
  let server: Awaited<ReturnType<typeof fakeOpenAI>>;
  let env: Record<string, string>;
  beforeAll(async () => {
    dir = `${dirs.out}-score`;
    const agent = createAgent("keep");
    const store = RunStore.open(dir, runConfig({ samples: ["t"], agent: agent.name, where: { repo: fx.dir } }, (p) => p));
    await runBenchmark({ samples: [chain], where: { repo: fx.dir }, agent, store, jobs: 1, judges: [], spec: { timeout_s: 60, max_turns: 5, scenarios: ["IR"] } });
    server = await fakeOpenAI([{ body: completion({ content: JSON.stringify({ better: "1", reason: "r" }) }) }]);
    env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "k" };
  });
  afterAll(() => server.close());
  const ir = () => byScenario(RunStore.read(dir).records).IR;

  it("checks the judges before it touches a record: a wrong endpoint stops it in one line", async () => {
    const before = readFileSync(path.join(dir, "results.jsonl"), "utf8");
    const r = await gitgood(["score", dir, "--judge", "judge-x"], { env: { OPENAI_BASE_URL: await deadEndpoint(), OPENAI_API_KEY: "k" } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^gitgood: the judge model failed its check, so nothing was re-scored: cannot reach the model endpoint for judge-x: .*\n$/);
    expect(readFileSync(path.join(dir, "results.jsonl"), "utf8")).toBe(before);
  });

  it("prices the judges with --price-in/--price-out, else with the configuration's prices:, else leaves their cost unknown", async () => {
    // Each of the two questions costs 11 prompt and 7 completion tokens.
    const score = async (args: string[], cwd?: string) => {
      const r = await gitgood(["score", dir, "--judge", "judge-p", "--no-cache", ...args], { env, cwd });
      expect(r.code, r.stderr).toBe(0);
      return ir();
    };
    expect(await score(["--price-in", "1", "--price-out", "2"])).toMatchObject({ judge_tokens: { prompt: 22, completion: 14 }, judge_cost_usd: (22 * 1 + 14 * 2) / 1e6 });
    const cwd = `${dirs.out}-score-config`;
    mkdirSync(cwd, { recursive: true });
    writeFileSync(path.join(cwd, "gitgood.config.yaml"), "prices:\n  judge-p: { input: 3, output: 4 }\n");
    expect(await score([], cwd)).toMatchObject({ judge_cost_usd: (22 * 3 + 14 * 4) / 1e6 });
    // The flags win over the file.
    expect(await score(["--price-in", "0", "--price-out", "1"], cwd)).toMatchObject({ judge_cost_usd: 14 / 1e6 });
    expect(await score([])).toMatchObject({ judge_tokens: { prompt: 22, completion: 14 }, judge_cost_usd: null });
    const half = await gitgood(["score", dir, "--judge", "judge-p", "--price-in", "1"], { env });
    expect([half.code, half.stderr]).toEqual([2, "gitgood: give both --price-in and --price-out (US dollars per million prompt and completion tokens of the judges)\n"]);
  });
});

describe("scoring has a time limit", () => {
  it("a judge endpoint that stalls after the run's check is cut off at the limit: the judge score is a SCORE_TIMEOUT error, unjudged, and the run goes on", async () => {
    // The check is answered; every judge request after it is taken and never answered.
    const stalled = await fakeOpenAI([{ body: completion({ content: "OK" }) }, { body: null, after: NEVER }]);
    const judge = new OpenAIChatClient({ model: "judge-stalled", baseURL: stalled.url, apiKey: "k", maxRetries: 0 });
    const dir = `${dirs.out}-stalled`;
    const agent = createAgent("keep");
    const store = RunStore.open(dir, runConfig({ samples: ["t"], agent: agent.name, where: { repo: fx.dir }, spec: { judges: ["judge-stalled"] } }, (p) => p));
    try {
      const summary = await runBenchmark({ samples: [chain], where: { repo: fx.dir }, agent, store, jobs: 1, judges: [judge], spec: { timeout_s: 3, max_turns: 5, scenarios: ["IR"] } });
      const ir = byScenario(summary.records).IR;
      expect(stalled.requests.length).toBe(2);
      expect(ir).toMatchObject({ status: "success", verdict: "unjudged", solved: null, error: null });
      expect(ir?.scores.checks).toMatchObject({ finished: true, tree_matches_tip: true });
      expect(ir?.scores.judge).toEqual({ error: { code: "SCORE_TIMEOUT", message: "scoring did not finish within 3 s (the scoring time limit)" } });
    } finally {
      await stalled.close();
    }
  });

  it("judge requests carry the scoring's signal", async () => {
    const seen: (AbortSignal | undefined)[] = [];
    const judge = { model: "judge-signal", complete: async (request: ModelRequest) => {
      seen.push(request.signal);
      return { message: { role: "assistant" as const, content: '{"better": "tie", "reason": "same"}' }, usage: { prompt_tokens: 1, completion_tokens: 1 }, finish_reason: "stop" };
    } };
    const dir = `${dirs.out}-signal`;
    const agent = createAgent("keep");
    const store = RunStore.open(dir, runConfig({ samples: ["t"], agent: agent.name, where: { repo: fx.dir }, spec: { judges: ["judge-signal"] } }, (p) => p));
    const summary = await runBenchmark({ samples: [chain], where: { repo: fx.dir }, agent, store, jobs: 1, judges: [judge], spec: { timeout_s: 60, max_turns: 5, scenarios: ["IR"] } });
    expect(byScenario(summary.records).IR).toMatchObject({ status: "success", verdict: "unsolved" });
    expect(seen).toHaveLength(2);
    for (const signal of seen) expect(signal).toBeInstanceOf(AbortSignal);
  });
});

describe("the runner", () => {
  it("works every scenario with an agent object that has no supports()", async () => {
    const agent: Agent = { name: "plain", run: async () => undefined };
    const store = RunStore.open(`${dirs.out}-plain`, runConfig({ samples: ["t"], agent: agent.name }, (p) => p));
    const summary = await runBenchmark({ samples, where: { repo: fx.dir }, agent, store, jobs: 2, spec: { timeout_s: 60, max_turns: 5 }, judges: [] });
    expect(summary.unsupported).toBe(0);
    expect(summary.records.map((r) => r.scenario).sort()).toEqual(["ICC", "IR", "MCR", "MCR"]);
    expect(summary.records.every((r) => r.status === "success" && r.verdict !== "solved")).toBe(true);
  });
});

describe("run.json", () => {
  it("records the version, the limits and the repository; judges and limits change without breaking the run's identity", async () => {
    const file = path.join(fx.scratch("data"), "one.jsonl");
    writeFileSync(file, `${sampleToJson(chain)}\n`);
    const out = `${dirs.out}-config`;
    const first = await gitgood(["run", file, "--repo", fx.dir, "--agent", "keep", "--out", out, "--timeout", "120", "--max-turns", "7", "-j", "1"]);
    expect(first.code, first.stderr).toBe(0);
    const config = RunStore.readConfig(out);
    expect(config).toMatchObject({
      gitgood_version: GITGOOD_VERSION,
      identity: { agent: "keep", spec: { max_turns: 7 }, where: { repo: path.resolve(fx.dir) }, model: null },
      limits: { jobs: 1 },
      spec: { timeout_s: 120, max_turns: 7, judges: [] },
    });
    const again = await gitgood(["run", file, "--repo", fx.dir, "--agent", "keep", "--out", out, "--timeout", "60", "--max-turns", "7"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("(already done)");
    expect(RunStore.readConfig(out).spec?.timeout_s).toBe(60);
    const other = await gitgood(["run", file, "--repo", fx.dir, "--agent", "keep", "--out", out, "--max-turns", "8"]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/other settings \(spec\.max_turns: 7 -> 8\)/);
  });
});
