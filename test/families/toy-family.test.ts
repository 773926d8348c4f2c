import { readStaticPage } from "../../src/report/html-read.js";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assessmentResult } from "../../src/a2a/result.js";
import { assessmentScenarios, assessmentSamples, parseAssessment } from "../../src/a2a/assessment.js";
import { readDataset } from "../../src/dataset/importer.js";
import { families, registerFamily, unregisterFamily } from "../../src/families/registry.js";
import { createMcpServer } from "../../src/mcp/server.js";
import { Workbench } from "../../src/mcp/workbench.js";
import { runConfig } from "../../src/runs/config.js";
import { RunStore } from "../../src/runs/store.js";
import { scenarioNames } from "../../src/scenarios/registry.js";
import { ParticipantExecutor } from "../../src/a2a/participant.js";
import { agentCard, serveA2a } from "../../src/a2a/server.js";
import { askAgent, connectAgent } from "../../src/agents/a2a-client.js";
import { ScriptedModelClient } from "../../src/model/scripted.js";
import { gitgood } from "../helpers/cli.js";
import { Fixture } from "../helpers/fixture.js";
// @ts-expect-error -- the example is plain JavaScript, without types of its own
import { TOY_FAMILY, toySample } from "../../examples/toy-family/index.js";

let fx: Fixture;
let samplesFile: string;
let runDir: string;

beforeAll(() => {
  fx = new Fixture();
  fx.commit("start", { "README.md": "toy\n" });
  samplesFile = path.join(fx.scratch("data"), "toy.jsonl");
  const rows = [toySample("toy_sum_0000", "acme/toy", 2, 3), toySample("toy_sum_0001", "acme/toy", 40, 2)];
  writeFileSync(samplesFile, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
  runDir = path.join(fx.scratch("runs"), "toy");
  registerFamily(TOY_FAMILY);
});

afterAll(() => {
  unregisterFamily(TOY_FAMILY.name);
  fx.remove();
});

describe("a task family defined outside src/ (its own sample type, one registration)", () => {
  it("is listed with its scenario, and refused twice", () => {
    expect(families().map((f) => f.name)).toContain("TOYSUM");
    expect(scenarioNames()).toContain("TOYSUM");
    expect(() => registerFamily(TOY_FAMILY)).toThrow(/registered already/);
  });

  it("reads its own sample type from a dataset file", async () => {
    const { samples } = await readDataset([samplesFile]);
    expect(samples.map((s) => [s.id, s.sample_type])).toEqual([
      ["toy_sum_0000", "toy_sum"],
      ["toy_sum_0001", "toy_sum"],
    ]);
  });

  it("runs through gitgood run with its own agent and setting, recorded in run.json's spec under its key", async () => {
    const r = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "toy-adder", "--toy-hint", "--out", runDir, "--json", "--jobs", "1"]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { totals: { scenario: string; solved: number }[]; toysum: unknown };
    expect(report.totals.find((t) => t.scenario === "TOYSUM")?.solved).toBe(2);
    expect(report.toysum).toEqual([{ agent: "toy-adder", attempts: 2, exact: 2 }]);
    const config = JSON.parse(readFileSync(path.join(runDir, "run.json"), "utf8")) as { identity: Record<string, unknown> & { spec?: Record<string, unknown> }; spec: Record<string, unknown> };
    expect(config.spec.toysum).toEqual({ hint: true });
    expect(config.identity.spec?.toysum).toEqual({ hint: true });
    expect(config.identity).not.toHaveProperty("toysum");
    // The option reached the scenario as its setting: the agent was told.
    const store = RunStore.openExisting(runDir);
    const record = store.all()[0];
    const trajectory = JSON.stringify(store.readTrajectory(record?.trajectory ?? ""));
    expect(trajectory).toContain("(hint: add them)");
    // Its baseline is an agent by name too.
    const guess = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "guess-zero", "--out", `${runDir}-guess`, "--json"]);
    expect(guess.code, guess.stderr).toBe(0);
    expect((JSON.parse(guess.stdout) as { toysum: unknown }).toysum).toEqual([{ agent: "guess-zero", attempts: 2, exact: 0 }]);
  });

  it("resumes a run.json that kept its setting under identity.toysum (before the spec held it) with the same flags, and refuses it with others", async () => {
    const old = path.join(fx.scratch("runs"), "toy-old");
    const first = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "toy-adder", "--toy-hint", "--out", old, "--jobs", "1"]);
    expect(first.code, first.stderr).toBe(0);
    // run.json as gitgood wrote it then: the family's field under its key, no fragment in the spec.
    const file = path.join(old, "run.json");
    const json = JSON.parse(readFileSync(file, "utf8")) as { identity: Record<string, unknown> & { spec?: Record<string, unknown> }; spec: Record<string, unknown> };
    const { spec: _identitySpec, ...identity } = json.identity;
    const { toysum: _fragment, ...spec } = json.spec;
    writeFileSync(file, JSON.stringify({ ...json, identity: { ...identity, toysum: { hint: true } }, spec }));
    const same = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "toy-adder", "--toy-hint", "--out", old, "--jobs", "1"]);
    expect(same.code, same.stderr).toBe(0);
    writeFileSync(file, JSON.stringify({ ...json, identity: { ...identity, toysum: { hint: true } }, spec }));
    const other = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "toy-adder", "--out", old, "--jobs", "1"]);
    expect(other.code).not.toBe(0);
    expect(other.stderr).toContain("spec.toysum.hint: true -> none");
  });

  it("has its section in the text and HTML reports, and its own report format", async () => {
    const html = path.join(fx.scratch("out"), "report.html");
    const csv = path.join(fx.scratch("out"), "toy.csv");
    const r = await gitgood(["report", runDir, "--html", html, "--toy-csv", csv]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Toy sums");
    expect(r.stdout).toMatch(/toy-adder\s+2\s+2/);
    expect(readStaticPage(readFileSync(html, "utf8")).index.runs[0]?.sections.map((x) => x.title)).toEqual(["Toy sums"]);
    expect(readFileSync(csv, "utf8")).toBe("sample_id,agent,verdict\ntoy_sum_0000,toy-adder,solved\ntoy_sum_0001,toy-adder,solved\n");
    const help = await gitgood(["report", "--help"]);
    expect(help.stdout).toContain("--toy-csv <file>");
  });

  it("is offered in A2A assessments, and its Result part is its own", async () => {
    expect(assessmentScenarios()).toContain("toysum");
    const a = parseAssessment(JSON.stringify({ participants: { agent: "http://127.0.0.1:9/" }, config: { dataset: samplesFile, repo: fx.dir, scenarios: ["toysum"] } }));
    expect([...a.scenarios]).toEqual(["TOYSUM"]);
    expect((await assessmentSamples(a)).map((s) => s.id)).toEqual(["toy_sum_0000", "toy_sum_0001"]);
    const records = RunStore.read(runDir).records;
    const result = assessmentResult(records, { role: "agent", agent: "toy-adder", runDir, scenarios: a.scenarios, cancelled: false });
    expect(result.text).toContain("TOYSUM: 2 sum(s)");
    expect(result.data.toy_sums).toBe(2);
    expect(result.data.gitgoodbench).toBeUndefined();
  });

  it("is worked and recorded over MCP", async () => {
    const { samples } = await readDataset([samplesFile]);
    const store = RunStore.open(path.join(fx.scratch("runs"), "mcp"), runConfig({ samples: ["t"], agent: "mcp" }, (p) => p));
    const bench = await Workbench.create({ source: { mode: "session", samples, where: { repo: fx.dir }, recorder: { store, judges: [], agent: "mcp" } } });
    const server = createMcpServer(bench, "stdio");
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "toy-family-test", version: "1" });
    await Promise.all([server.connect(a), client.connect(b)]);
    try {
      const start = await client.callTool({ name: "start_scenario", arguments: { sample_id: "toy_sum_0001", scenario: "toysum" } });
      expect(start.isError ?? false).toBe(false);
      await client.callTool({ name: "submit_sum", arguments: { sum: 42, reason: "added" } });
      await client.callTool({ name: "finish_scenario", arguments: {} });
      expect(store.all().map((r) => [r.scenario, r.verdict])).toEqual([["TOYSUM", "solved"]]);
    } finally {
      await client.close();
      await bench.close();
    }
  });

  it("is set up and finished through gitgood env, with its option", async () => {
    const env = { GITGOOD_SANDBOX_ROOT: path.join(fx.scratch("env"), "sandboxes") };
    const started = await gitgood(["env", samplesFile, "--id", "toy_sum_0000", "--repo", fx.dir, "--toy-hint", "--json"], { env });
    expect(started.code, started.stderr).toBe(0);
    const out = JSON.parse(started.stdout) as { sandbox: string; scenario: string; context: string };
    expect(out.scenario).toBe("toysum");
    expect(JSON.stringify(out)).toContain("(hint: add them)");
    const finished = await gitgood(["env", "--finish", "--sandbox", out.sandbox], { env });
    expect(finished.code, finished.stderr).toBe(0);
    // defineScenario's default: the final state as JSON.
    expect(finished.stdout).toContain('"answer": null');
  });

  it("adds its verb and its mode of gitgood mine to the command line, and they run", async () => {
    // Help is wrapped to 80 columns: compare it with its runs of white space as one space.
    const flat = (text: string) => text.replace(/\s+/g, " ");
    const help = flat((await gitgood(["--help"])).stdout);
    expect(help).toContain("handle Git: GitGoodBench scenarios (MCR, IR, ICC), SWE-style tasks, commit0-style repository completion and toy sums ");
    expect(help).toContain(" toy-count <file> count the toy sums of a samples file ");
    expect(help.indexOf("toy-count")).toBeGreaterThan(help.indexOf("skeleton"));
    expect(await gitgood(["toy-count", samplesFile])).toEqual({ code: 0, stdout: "2 toy sum(s)\n", stderr: "" });
    const mineHelp = flat((await gitgood(["mine", "--help"])).stdout);
    expect(mineHelp).toContain("or toy sums (--type toy) from a git repository");
    expect(mineHelp).toContain("--toy-a <n> toy: the first number");
    const mined = await gitgood(["mine", fx.dir, "--type", "toy", "--name", "acme/toy", "--toy-a", "4", "--toy-b", "5"]);
    expect(mined.code, mined.stderr).toBe(0);
    expect(JSON.parse(mined.stdout)).toEqual(toySample("toy_sum_mined", "acme/toy", 4, 5));
    expect(mined.stderr).toBe("mined 1 toy sum from acme/toy\n");
  });

  it("is a task gitgood's A2A participant takes, and named in its refusal", async () => {
    const model = new ScriptedModelClient([{ tool_calls: [{ name: "submit_sum", arguments: { sum: 5 } }] }, "Five."]);
    const card = agentCard({ name: "participant", description: "test", url: "http://127.0.0.1:1", skills: [] });
    const handle = await serveA2a({ host: "127.0.0.1", port: 0, access: { allowedOrigins: [], loopback: true }, card, executor: new ParticipantExecutor({ model, log: () => undefined }) });
    try {
      card.supportedInterfaces = card.supportedInterfaces.map((i) => ({ ...i, url: `${handle.url}/` }));
      const client = await connectAgent(handle.url);
      const ask = (text: string) => askAgent(client, [{ text }], { signal: new AbortController().signal, pollSeconds: 0.05 });
      expect((await ask("TOY: 2 + 3")).text).toBe("sum=5");
      expect(model.requests[0]?.messages.at(-1)?.content).toBe("What is 2 + 3?");
      await expect(ask("hello")).rejects.toThrow(/this agent takes a SWE task \(REPO_DIR:<path>, then Problem Statement:\) or a toy sum \(TOY: A \+ B\) or a GitGoodBench task/);
    } finally {
      await handle.close();
    }
  });
});
