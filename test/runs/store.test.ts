import { runConfig, runJudges } from "../../src/runs/config.js";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RESULTS_SCHEMA_VERSION, resultKey, type ResultRecord } from "../../src/runs/record.js";
import { RunStore } from "../../src/runs/store.js";
import { buildReport } from "../../src/report/summary.js";
import { formatReport } from "../../src/report/text.js";
import { renderStaticPage } from "../../src/report/html.js";
import { mergeSample } from "../helpers/dataset.js";
import { readStaticPage } from "../../src/report/html-read.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), "gitgood-run-"));
  dirs.push(d);
  return d;
}

export function record(id: string, scenario: ResultRecord["scenario"], over: Partial<ResultRecord> = {}): ResultRecord {
  return {
    schema_version: RESULTS_SCHEMA_VERSION,
    key: resultKey(id, scenario),
    sample_id: id,
    scenario,
    repository: "o/r",
    difficulty: "easy",
    agent: "oracle",
    status: "success",
    solved: true,
    verdict: "solved",
    scores: {},
    error: null,
    turns: 2,
    tool_calls: 3,
    tokens: { prompt: 10, completion: 5 },
    cost_usd: null,
    started_at: "2026-01-01T00:00:00.000Z",
    duration_ms: 1200,
    trajectory: null,
    ...over,
  };
}

describe("RunStore", () => {
  const config = runConfig({ samples: ["/data/s.jsonl"], agent: "oracle" }, (p) => p);

  it("appends records and finds them again when the run is reopened", () => {
    const dir = tmp();
    const a = RunStore.open(dir, config);
    a.append(record("s1", "MCR"));
    a.append(record("s2", "IR", { solved: null, verdict: "unjudged" }));
    const b = RunStore.open(dir, config);
    expect(b.has(resultKey("s1", "MCR"))).toBe(true);
    expect(b.has(resultKey("s2", "IR"))).toBe(true);
    expect(b.has(resultKey("s2", "ICC"))).toBe(false);
    expect(b.all()).toHaveLength(2);
  });

  it("cuts a line torn by a kill and counts nothing twice", () => {
    const dir = tmp();
    const a = RunStore.open(dir, config);
    a.append(record("s1", "MCR"));
    appendFileSync(path.join(dir, "results.jsonl"), '{"schema_version":1,"key":"s2.MC');
    const b = RunStore.open(dir, config);
    expect(b.all().map((r) => r.key)).toEqual(["s1.MCR"]);
    expect(readFileSync(path.join(dir, "results.jsonl"), "utf8").endsWith("}\n")).toBe(true);
    b.append(record("s1", "MCR", { solved: false, verdict: "unsolved" }));
    expect(RunStore.open(dir, config).all()).toHaveLength(1);
  });

  it("opened append-only (an MCP evaluation), refuses to replace a record or its trajectory, in this session or a later one", () => {
    const dir = tmp();
    const file = path.join(dir, "results.jsonl");
    const store = RunStore.open(dir, config, { appendOnly: true });
    const rel = store.writeTrajectory("s1.MCR", { first: true });
    store.append(record("s1", "MCR", { trajectory: rel }));
    const before = readFileSync(file, "utf8");
    const again = record("s1", "MCR", { solved: false, verdict: "unsolved" });
    expect(() => store.append(again)).toThrow(/s1\.MCR is recorded in .* already/);
    expect(() => store.writeTrajectory("s1.MCR", { first: false })).toThrow(/RECORD_EXISTS|already/);
    expect(() => store.replaceAll([again])).toThrow(/kept as they are/);
    const reopened = RunStore.open(dir, config, { appendOnly: true });
    expect(() => reopened.append(again)).toThrow(/already/);
    reopened.append(record("s2", "IR"));
    expect(readFileSync(file, "utf8")).toBe(`${before}${JSON.stringify(record("s2", "IR"))}\n`);
    expect(store.readTrajectory(rel)).toEqual({ first: true });
    // The same directory opened as run and resume open it still replaces a retried record.
    RunStore.open(dir, config).append(again);
    expect(RunStore.read(dir).records.map((r) => [r.key, r.verdict])).toEqual([
      ["s1.MCR", "unsolved"],
      ["s2.IR", "solved"],
    ]);
  });

  it("keeps one line per key in results.jsonl: a later record of a key replaces the earlier one in place", () => {
    const dir = tmp();
    const file = path.join(dir, "results.jsonl");
    const store = RunStore.open(dir, config);
    store.append(record("s1", "MCR", { status: "error", solved: false, verdict: "error", error: { code: "CLIENT_DISCONNECTED", message: "gone" } }));
    store.append(record("s2", "IR"));
    // The client comes back and finishes s1 (an MCP session, or --retry-errors).
    store.append(record("s1", "MCR"));
    const lines = readFileSync(file, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as { key: string; status: string });
    expect(lines.map((l) => [l.key, l.status])).toEqual([
      ["s1.MCR", "success"],
      ["s2.IR", "success"],
    ]);
    // A file written with two lines for a key (by an older gitgood) is compacted when the run is opened.
    appendFileSync(file, `${JSON.stringify(record("s2", "IR", { solved: false, verdict: "unsolved" }))}\n`);
    expect(RunStore.open(dir, config).all().map((r) => [r.key, r.verdict])).toEqual([
      ["s1.MCR", "solved"],
      ["s2.IR", "unsolved"],
    ]);
    expect(readFileSync(file, "utf8").trimEnd().split("\n")).toHaveLength(2);
  });

  it("refuses to resume a directory made with other settings", () => {
    const dir = tmp();
    RunStore.open(dir, config);
    expect(() => RunStore.open(dir, { ...config, identity: { ...config.identity, agent: "llm" } })).toThrow(/other settings \(agent: "oracle" -> "llm"\)/);
    // Judges and limits are not part of a run's identity: other ones resume the same run and are recorded.
    RunStore.open(dir, { ...config, limits: { jobs: 4 }, spec: { timeout_s: 60, judges: ["judge-a"] } });
    expect(runJudges(RunStore.readConfig(dir))).toEqual(["judge-a"]);
    expect(() => RunStore.read(tmp())).toThrow(/not a gitgood run directory/);
  });
});

describe("report", () => {
  const records = [
    record("m1", "MCR", { difficulty: "easy" }),
    record("m2", "MCR", { difficulty: "hard", solved: false, verdict: "unsolved" }),
    record("m3", "MCR", { difficulty: "hard", status: "error", solved: false, verdict: "error", error: { code: "TIMEOUT", message: "slow" } }),
    record("c1", "IR", { solved: true }),
    record("c1", "ICC", { solved: false, verdict: "unsolved" }),
  ];

  it("computes success and solve rates per scenario, difficulty and in total", () => {
    const r = buildReport({ records });
    const byScenario = Object.fromEntries(r.totals.map((t) => [t.scenario, t]));
    expect(byScenario.MCR).toMatchObject({ samples: 3, success: 2, solved: 1, success_rate: 66.67, solve_rate: 33.33 });
    expect(byScenario.IR).toMatchObject({ samples: 1, success_rate: 100, solve_rate: 100 });
    expect(byScenario.ICC).toMatchObject({ samples: 1, solve_rate: 0 });
    expect(byScenario.total).toMatchObject({ samples: 5, success: 4, solved: 2, success_rate: 80, solve_rate: 40 });
    expect(r.by_difficulty.filter((d) => d.scenario === "MCR").map((d) => [d.difficulty, d.samples, d.solve_rate])).toEqual([
      ["easy", 1, 100],
      ["hard", 2, 0],
    ]);
    expect(r.tokens).toEqual({ prompt: 50, completion: 25 });
    expect(r.samples.map((s) => `${s.scenario}:${s.sample_id}`)).toEqual(["IR:c1", "ICC:c1", "MCR:m1", "MCR:m2", "MCR:m3"]);
  });

  it("does not report a solve rate over unjudged samples", () => {
    const r = buildReport({ records: [record("c1", "IR", { solved: null, verdict: "unjudged" }), record("c2", "IR")] });
    expect(r.totals.find((t) => t.scenario === "IR")).toMatchObject({ unjudged: 1, solve_rate: null, success_rate: 100 });
    expect(formatReport(r)).toMatch(/IR\s+2\s+100\.00\s+unjudged \(1\)/);
  });

  it("renders text and a self-contained HTML page with escaped content", () => {
    const r = buildReport({ records });
    const text = formatReport(r);
    expect(text).toMatch(/total\s+5\s+80\.00\s+40\.00/);
    // The page of a run whose trajectory holds markup: carried as data, drawn as text (never as HTML).
    const dir = tmp();
    const store = RunStore.open(dir, runConfig({ samples: ["/data/s.jsonl"], agent: "oracle" }, (p) => p));
    const rel = store.writeTrajectory("m1.MCR", {
      schema_version: RESULTS_SCHEMA_VERSION,
      sample_id: "m1",
      scenario: "MCR",
      agent: "oracle",
      sample: { ...mergeSample({ name: "o/r", index: 0 }), id: "m1" },
      ground_truth_diff: "-<<<<<<< ours\n+fixed",
      events: [
        { type: "tool_call", tool: "x", args: { a: "<b>" } },
        { type: "tool_result", tool: "x", ok: true, output: "<b>bold</b>", done: false },
      ],
    });
    store.append(record("m1", "MCR", { trajectory: rel }));
    const html = renderStaticPage([{ dir, records: store.all(), agent: "oracle", label: "run" }], { title: "run" });
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toContain("<b>");
    expect(html).not.toContain("<<<<<<<");
    const attempt = readStaticPage(html).attempt(0, "m1.MCR");
    expect(attempt?.outcome.ground_truth_diff).toBe("-<<<<<<< ours\n+fixed");
    expect(attempt?.turns[0]?.calls[0]).toMatchObject({ name: "x", arguments: '{"a":"<b>"}', result: { ok: true, output: "<b>bold</b>" } });
    // Nothing loads from the network (the one URL in the page is the SVG namespace, a name, not an address).
    expect(html.replaceAll("http://www.w3.org/2000/svg", "")).not.toMatch(/<script[^>]*\ssrc=|<link|https?:\/\//);
  });
});
