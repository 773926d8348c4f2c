import { writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/index.js";
import { sampleToJson, type ChainSample, type Sample } from "../../src/dataset/sample.js";
import { createMcpServer } from "../../src/mcp/server.js";
import { Workbench } from "../../src/mcp/workbench.js";
import { buildReport } from "../../src/report/summary.js";
import { runConfig } from "../../src/runs/config.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import { registerScenario, scenarioNames, unregisterScenario } from "../../src/scenarios/registry.js";
import { gitgood } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";
import { TOY } from "../helpers/toy/index.js";

let fx: Fixture;
let samples: Sample[];
let chain: ChainSample;
let dirs: ReturnType<typeof tempDirs>;
let samplesFile: string;

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  const c = samples.find((s): s is ChainSample => s.sample_type === "file_commit_chain");
  if (!c) throw new Error("the run fixture has no chain");
  chain = c;
  dirs = tempDirs();
  samplesFile = path.join(fx.scratch("data"), "samples.jsonl");
  writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
  registerScenario(TOY);
});

afterAll(() => {
  unregisterScenario(TOY.name);
  dirs.cleanup();
  fx.remove();
});

describe("a scenario defined outside src/ (one folder, one registration)", () => {
  it("is listed, refused twice, and found in any case", async () => {
    expect(scenarioNames()).toEqual(["IR", "ICC", "MCR", "SWE", "COMMIT0", "TOY"]);
    expect(() => registerScenario(TOY)).toThrow(/registered already/);
  });

  it("runs through the runner with the oracle and its own baseline, and the report counts it", async () => {
    const store = RunStore.open(`${dirs.out}-oracle`, runConfig({ samples: ["t"], agent: "oracle" }, (p) => p));
    const summary = await runBenchmark({
      samples: [chain],
      where: { repo: fx.dir },
      agent: createAgent("oracle"),
      store,
      jobs: 1,
      spec: { timeout_s: 60, max_turns: 5 },
      judges: [],
    });
    const toy = summary.records.find((r) => r.scenario === "TOY");
    expect(toy).toMatchObject({ status: "success", verdict: "solved", scores: { right_count: { answer: 4 } } });
    // The oracle works the built-in scenarios of the same sample as before.
    expect(summary.records.map((r) => r.scenario).sort()).toEqual(["ICC", "IR", "TOY"]);
    const report = buildReport({ records: summary.records });
    // Every GitGoodBench scenario has its row (MCR with none), the toy (a family of its own) too; SWE, with no attempt, none.
    expect(report.totals.map((r) => r.scenario)).toEqual(["IR", "ICC", "MCR", "TOY", "total"]);
    expect(report.totals.find((r) => r.scenario === "TOY")).toMatchObject({ samples: 1, solved: 1, solve_rate: 100 });

    // Its baseline is an agent by name, and works only its own scenario.
    const guess = createAgent("guess-three");
    const s2 = await runBenchmark({
      samples,
      where: { repo: fx.dir },
      agent: guess,
      store: RunStore.open(`${dirs.out}-guess`, runConfig({ samples: ["t"], agent: guess.name }, (p) => p)),
      jobs: 1,
      spec: { timeout_s: 60, max_turns: 5 },
      judges: [],
    });
    expect(s2.records.map((r) => [r.scenario, r.verdict])).toEqual([["TOY", "unsolved"]]);
    expect(s2.unsupported).toBe(samples.length + 1); // every MCR sample, and the chain's IR and ICC
  });

  it("is set up, called and finished through gitgood env and gitgood tool", async () => {
    const env = { GITGOOD_SANDBOX_ROOT: path.join(fx.scratch("env"), "sandboxes") };
    const started = await gitgood(["env", samplesFile, "--id", chain.id, "--repo", fx.dir, "--scenario", "toy", "--json"], { env });
    expect(started.code, started.stderr).toBe(0);
    const out = JSON.parse(started.stdout) as { sandbox: string; scenario: string; tools: { function: { name: string } }[] };
    expect(out.scenario).toBe("toy");
    expect(out.tools.map((t) => t.function.name)).toEqual(["submit_count"]);
    const called = await gitgood(["tool", "submit_count", "--sandbox", out.sandbox, "--args", '{"count": 4, "reason": "counted"}'], { env });
    expect(called.code, called.stderr).toBe(0);
    expect(called.stdout).toContain("Recorded 4.");
    const finished = await gitgood(["env", "--finish", "--sandbox", out.sandbox], { env });
    expect(finished.stdout).toContain("toy: answered 4");
  });

  it("is offered, worked and recorded over MCP in session mode", async () => {
    const store = RunStore.open(`${dirs.out}-mcp`, runConfig({ samples: ["t"], agent: "mcp" }, (p) => p));
    const bench = await Workbench.create({
      source: { mode: "session", samples, where: { repo: fx.dir }, recorder: { store, judges: [], agent: "mcp" } },
    });
    const server = createMcpServer(bench, "stdio");
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "toy-test", version: "1" });
    await Promise.all([server.connect(a), client.connect(b)]);
    try {
      const start = await client.callTool({ name: "start_scenario", arguments: { sample_id: chain.id, scenario: "toy" } });
      expect(start.isError ?? false).toBe(false);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("submit_count");
      await client.callTool({ name: "submit_count", arguments: { count: 4, reason: "counted" } });
      await client.callTool({ name: "finish_scenario", arguments: {} });
      expect(store.all().map((r) => [r.scenario, r.verdict])).toEqual([["TOY", "solved"]]);
    } finally {
      await client.close();
      await bench.close();
    }
  });
});
