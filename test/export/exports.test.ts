import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ATIF_VERSION, atifTrajectory } from "../../src/export/atif.js";
import { agentPrices, qualifiedModelName } from "../../src/export/models.js";
import { attemptsOf, readRun, type RunRead } from "../../src/export/attempts.js";
import { chatMessages, conversationOf } from "../../src/report/conversation.js";
import { inspectLog } from "../../src/export/inspect.js";
import { sftExport } from "../../src/export/sft.js";
import { zipArchive } from "../../src/export/zip.js";
import { gitgood } from "../helpers/cli.js";
import { buildExportRuns, type ExportFixture } from "./runs.js";
import { schemaValidator } from "./schemas.js";

let ex: ExportFixture;
let tmp: string;
beforeAll(async () => {
  ex = await buildExportRuns();
  tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-export-"));
}, 120_000);
afterAll(() => {
  ex?.cleanup();
  rmSync(tmp, { recursive: true, force: true });
});

type Msg = { role: string; content?: unknown; tool_calls?: { id: string }[]; tool_call_id?: string };

/** The OpenAI chat rules a fine-tuning file must keep: known roles, and every tool call answered by a tool message before the next assistant turn. */
function openAiProblems(messages: Msg[]): string[] {
  const problems: string[] = [];
  let open: string[] = [];
  for (const [i, m] of messages.entries()) {
    if (!["system", "user", "assistant", "tool"].includes(m.role)) problems.push(`${i}: role ${m.role}`);
    if (m.role === "tool") {
      if (!open.includes(m.tool_call_id ?? "")) problems.push(`${i}: tool message for ${m.tool_call_id} answers no open call`);
      open = open.filter((id) => id !== m.tool_call_id);
    } else {
      if (open.length > 0) problems.push(`${i}: calls ${open.join(", ")} unanswered`);
      open = (m.tool_calls ?? []).map((c) => c.id);
    }
  }
  if (open.length > 0) problems.push(`calls ${open.join(", ")} unanswered at the end`);
  return problems;
}

/** The ATIF rules Harbor's pydantic models check beyond the JSON schema. */
function atifProblems(doc: { steps: { step_id: number; source: string; tool_calls?: { tool_call_id: string }[]; observation?: { results: { source_call_id?: string }[] }; [k: string]: unknown }[] }): string[] {
  const problems: string[] = [];
  doc.steps.forEach((s, i) => {
    if (s.step_id !== i + 1) problems.push(`step ${i} has id ${s.step_id}`);
    const ids = new Set((s.tool_calls ?? []).map((c) => c.tool_call_id));
    for (const r of s.observation?.results ?? []) if (r.source_call_id && !ids.has(r.source_call_id)) problems.push(`step ${s.step_id}: result for unknown call ${r.source_call_id}`);
    if (s.source !== "agent") for (const f of ["model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"]) if (s[f] !== undefined) problems.push(`step ${s.step_id}: ${f} on a ${s.source} step`);
  });
  return problems;
}

/** The entries of a zip as Python's zipfile reads them (names, CRCs, contents), each parsed as JSON. */
function readZipJson(file: string): Record<string, unknown> {
  const py = spawnSync("python3", ["-c", "import zipfile,json,sys\nz=zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nprint(json.dumps({n:json.loads(z.read(n)) for n in z.namelist()}))", file], { encoding: "utf8", maxBuffer: 1 << 28 });
  expect(py.stderr).toBe("");
  return JSON.parse(py.stdout) as Record<string, unknown>;
}

/** A run as if made with `--model NAME --price-in 2 --price-out 8` from a samples file under another machine's home. */
function pricedRun(dir: string, name: string): RunRead {
  const run = readRun(dir);
  const identity = { ...run.config.identity, samples: "/home/someone/gitgood/samples.jsonl", model: { name, endpoint: null } };
  return { ...run, config: { ...run.config, identity, config: { file: null, options: { "price-in": 2, "price-out": 8 }, prices: {} } } };
}

describe("the conversation of an attempt", () => {
  it("rebuilds the llm agent's chat: system, task, calls answered in order, a malformed call answered by its note, the nudge after a turn without calls", () => {
    const run = readRun(ex.llmRun);
    const [attempt] = attemptsOf(run);
    expect(attempt?.record.solved).toBe(true);
    const conv = conversationOf(attempt!.trajectory!);
    expect(conv.turns).toHaveLength(4);
    expect(conv.turns.every((t) => t.usage !== null)).toBe(true);
    const messages = chatMessages(conv);
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "tool", "assistant", "user", "assistant", "tool"]);
    expect(messages[5]).toMatchObject({ role: "tool", content: expect.stringMatching(/^malformed arguments for resolve_current_merge_conflict_with/) });
    expect(messages[3]?.content).toMatch(/<<<<<<<|io3/);
    expect(messages[7]?.content).toMatch(/not finished yet/);
    expect(openAiProblems(messages as Msg[])).toEqual([]);
  });

  it("turns an agent's tool calls without model turns (the oracle) into turns of their own", () => {
    const run = readRun(ex.oracleRun);
    const mcr = attemptsOf(run).find((a) => a.record.scenario === "MCR" && a.record.solved === true)!;
    const conv = conversationOf(mcr.trajectory!);
    expect(conv.system).toBeNull();
    expect(conv.turns.length).toBeGreaterThan(0);
    expect(conv.turns.every((t) => t.content === null && t.calls.length === 1 && t.calls[0]!.result !== null)).toBe(true);
    expect(openAiProblems(chatMessages(conv) as Msg[])).toEqual([]);
  });
});

describe("export sft", () => {
  it("writes one OpenAI-layout conversation per solved attempt, with the scenario's tools", async () => {
    const out = path.join(tmp, "sft.jsonl");
    const r = await gitgood(["export", "sft", ex.llmRun, ex.oracleRun, "--solved-only", "--out", out]);
    expect(r.stderr).toMatch(/conversation\(s\) written/);
    expect(r.code).toBe(0);
    const lines = readFileSync(out, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as { messages: Msg[]; tools: { function: { name: string } }[] });
    const solved = [ex.llmRun, ex.oracleRun].flatMap((d) => readRun(d).records).filter((rec) => rec.solved === true).length;
    expect(lines).toHaveLength(solved);
    for (const line of lines) {
      expect(Object.keys(line).sort()).toEqual(["messages", "tools"]);
      expect(openAiProblems(line.messages)).toEqual([]);
      expect(line.tools.map((t) => t.function.name)).toContain("resolve_current_merge_conflict_with");
    }
  });

  it("writes only solved attempts unless told --all, and says how many it left out", async () => {
    const records = [ex.llmRun, ex.oracleRun].flatMap((d) => readRun(d).records);
    const solved = records.filter((rec) => rec.solved === true).length;
    const withTrajectory = records.filter((rec) => rec.trajectory).length;
    expect(solved).toBeLessThan(withTrajectory);
    const plain = await gitgood(["export", "sft", ex.llmRun, ex.oracleRun]);
    expect(plain.code).toBe(0);
    expect(plain.stdout.trimEnd().split("\n")).toHaveLength(solved);
    expect(plain.stderr).toContain(`${solved} conversation(s); ${records.length - solved} not solved left out (--all to include them)`);
    const all = await gitgood(["export", "sft", ex.llmRun, ex.oracleRun, "--all"]);
    expect(all.code).toBe(0);
    expect(all.stdout.trimEnd().split("\n")).toHaveLength(withTrajectory);
    expect(all.stderr).not.toMatch(/not solved/);
    // --verdict names the verdicts wanted: no solved-only default under it.
    const unsolved = await gitgood(["export", "sft", ex.oracleRun, "--verdict", "unjudged"]);
    expect(unsolved.stdout.trimEnd().split("\n")).toHaveLength(readRun(ex.oracleRun).records.filter((rec) => rec.verdict === "unjudged").length);
    const both = await gitgood(["export", "sft", ex.llmRun, "--all", "--solved-only"]);
    expect(both.code).not.toBe(0);
    expect(both.stderr.trim().split("\n")).toEqual(["gitgood: --all and --solved-only contradict each other: choose one"]);
  });

  it("filters by scenario and verdict, and writes the ShareGPT layout with alternating turns", () => {
    const runs = [readRun(ex.oracleRun)];
    const unjudged = sftExport(runs, { verdicts: ["unjudged"], scenarios: ["ir"] }, "sharegpt");
    const irCount = runs[0]!.records.filter((r) => r.scenario === "IR" && r.verdict === "unjudged").length;
    expect(irCount).toBeGreaterThan(0);
    expect(unjudged.written).toBe(irCount);
    for (const line of unjudged.lines) {
      const doc = JSON.parse(line) as { conversations: { from: string }[]; tools: string };
      doc.conversations.forEach((t, i) => expect(i % 2 === 0 ? ["human", "observation"] : ["gpt", "function_call"]).toContain(t.from));
      expect(JSON.parse(doc.tools)).toBeInstanceOf(Array);
    }
    expect(sftExport(runs, { solvedOnly: true, scenarios: ["IR"] }, "openai").written).toBe(0);
  });

  it("keeps only attempts whose judges agree with --judges-agree", () => {
    const run = readRun(ex.oracleRun);
    const ir = run.records.find((r) => r.scenario === "IR")!;
    const split = { ...ir, key: "split", scores: { pairwise: { verdicts: [{ winner: "agent" }, { winner: "original" }] } } };
    const agree = { ...ir, key: "agree", scores: { pairwise: { verdicts: [{ winner: "agent" }, { winner: "agent" }] } } };
    const fake = { ...run, records: [split, agree] };
    expect(sftExport([fake], { judgesAgree: true }, "openai").filtered).toBe(1);
    expect(sftExport([fake], {}, "openai").filtered).toBe(0);
  });

  it("refuses a directory that is not a run with one line", async () => {
    const r = await gitgood(["export", "sft", tmp]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/not a gitgood run directory/);
  });
});

describe("export atif", () => {
  it("writes every attempt as a trajectory valid against Harbor's ATIF schema", async () => {
    const out = path.join(tmp, "atif");
    const r = await gitgood(["export", "atif", ex.llmRun, ex.oracleRun, "--out", out]);
    expect(r.code).toBe(0);
    const validate = schemaValidator("atif-trajectory.schema.json");
    const files = readdirSync(out, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    const total = [ex.llmRun, ex.oracleRun].flatMap((d) => readRun(d).records).filter((rec) => rec.trajectory).length;
    expect(files).toHaveLength(total);
    for (const f of files) {
      const doc = JSON.parse(readFileSync(path.join(f.parentPath, f.name), "utf8"));
      expect(validate(doc), f.name).toEqual([]);
      expect(atifProblems(doc), f.name).toEqual([]);
    }
  });

  it("writes the ATIF version its vendored schema is for, and each step's cost at the run's prices", () => {
    const schema = JSON.parse(readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "schemas", "atif-trajectory.schema.json"), "utf8")) as { properties: { schema_version: { default: string } } };
    expect(ATIF_VERSION).toBe(schema.properties.schema_version.default);
    const run = pricedRun(ex.llmRun, "fake-1");
    const [a] = attemptsOf(run);
    const doc = atifTrajectory("llm", "t", a!.record, a!.trajectory!, qualifiedModelName("fake-1"), agentPrices(run)) as { schema_version: string; steps: { model_name?: string; metrics?: { prompt_tokens: number; completion_tokens: number; cost_usd?: number } }[] };
    expect(doc.schema_version).toBe(ATIF_VERSION);
    expect(schemaValidator("atif-trajectory.schema.json")(doc)).toEqual([]);
    const metered = doc.steps.filter((s) => s.metrics);
    expect(metered).toHaveLength(4);
    for (const s of metered) expect(s.metrics?.cost_usd).toBeCloseTo((s.metrics!.prompt_tokens * 2 + s.metrics!.completion_tokens * 8) / 1e6, 9);
    expect(metered.every((s) => s.model_name === "openai/fake-1")).toBe(true);
    // Without prices no step claims a cost.
    const unpriced = atifTrajectory("llm", "t", a!.record, a!.trajectory!, null) as typeof doc;
    expect(unpriced.steps.some((s) => s.metrics?.cost_usd !== undefined)).toBe(false);
  });

  it("carries the turns' tokens, the calls and their results", () => {
    const run = readRun(ex.llmRun);
    const [a] = attemptsOf(run);
    const doc = atifTrajectory("llm", "test", a!.record, a!.trajectory!, "scripted") as { steps: Record<string, unknown>[]; final_metrics: Record<string, number> };
    expect(doc.steps.map((s) => s.source)).toEqual(["system", "user", "agent", "agent", "agent", "user", "agent"]);
    expect(doc.final_metrics.total_prompt_tokens).toBe(a!.record.tokens.prompt);
    // Usage that was not measured is null, never 0 tokens, and still valid ATIF.
    const unmeasured = atifTrajectory("llm", "test", { ...a!.record, usage_known: false }, a!.trajectory!, "scripted") as typeof doc;
    expect(unmeasured.final_metrics).toMatchObject({ total_prompt_tokens: null, total_completion_tokens: null });
    expect(schemaValidator("atif-trajectory.schema.json")(unmeasured)).toEqual([]);
    expect(doc.steps[3]).toMatchObject({ tool_calls: [{ arguments: { raw: "{not json" } }] });
    // A step that breaks Harbor's rules is caught: the checks can fail.
    const broken = { ...doc, steps: [{ ...doc.steps[0], metrics: { prompt_tokens: 1 } }, ...doc.steps.slice(1)] };
    expect(atifProblems(broken as never)).not.toEqual([]);
    expect(schemaValidator("atif-trajectory.schema.json")({ ...doc, steps: [{ ...doc.steps[0], surprise: 1 }] })).not.toEqual([]);
  });
});

describe("export inspect", () => {
  it("writes a .eval zip whose header, samples, summaries and reductions match Inspect's log schema", async () => {
    const out = path.join(tmp, "inspect");
    const r = await gitgood(["export", "inspect", ex.oracleRun, ex.llmRun, "--out", out]);
    expect(r.code).toBe(0);
    const file = path.join(out, `${path.basename(ex.oracleRun)}.eval`);
    // Python's zipfile is the independent reader: names, CRCs (testzip) and contents.
    const entries = readZipJson(file);
    const names = Object.keys(entries);
    const run = readRun(ex.oracleRun);
    expect(names.filter((n) => n.startsWith("samples/"))).toHaveLength(run.records.length);
    expect(names).toEqual(expect.arrayContaining(["header.json", "summaries.json", "reductions.json"]));
    const log = schemaValidator("inspect-log.schema.json", "EvalLog");
    const sample = schemaValidator("inspect-log.schema.json", "EvalSample");
    const summary = schemaValidator("inspect-log.schema.json", "EvalSampleSummary");
    const reduction = schemaValidator("inspect-log.schema.json", "EvalSampleReductions");
    expect(log(entries["header.json"])).toEqual([]);
    for (const n of names.filter((x) => x.startsWith("samples/"))) {
      expect(n).toMatch(/^samples\/.+_epoch_1\.json$/);
      expect(sample(entries[n]), n).toEqual([]);
    }
    for (const s of entries["summaries.json"] as unknown[]) expect(summary(s)).toEqual([]);
    for (const s of entries["reductions.json"] as unknown[]) expect(reduction(s)).toEqual([]);
    const header = entries["header.json"] as { results: { scores: { metrics: { accuracy: { value: number } } }[] } };
    const solved = run.records.filter((x) => x.solved === true).length;
    expect(header.results.scores[0]?.metrics.accuracy.value).toBeCloseTo(solved / run.records.length);
    // The validator rejects a sample missing a required field: the check can fail.
    expect(sample({ ...(entries[names.find((x) => x.startsWith("samples/"))!] as object), messages: undefined })).not.toEqual([]);
  });

  it("gives each sample a transcript of model, tool and score events, the model named with its provider, usage and cost per call", () => {
    const run = pricedRun(ex.llmRun, "fake-1");
    const file = path.join(tmp, "llm-priced.eval");
    writeFileSync(file, inspectLog(run, "t"));
    const entries = readZipJson(file);
    const header = entries["header.json"] as { eval: { model: string; dataset: { name: string } }; stats: { model_usage: Record<string, { input_tokens: number; total_cost?: number }> } };
    expect(header.eval.model).toBe("openai/fake-1");
    expect(header.eval.dataset.name).toBe("samples.jsonl");
    const [attempt] = attemptsOf(run);
    const record = attempt!.record;
    expect(header.stats.model_usage["openai/fake-1"]?.input_tokens).toBe(record.tokens.prompt);
    // An agent whose usage was not measured has no usage entry, not one of 0 tokens.
    const unmeasuredFile = path.join(tmp, "llm-unmeasured.eval");
    writeFileSync(unmeasuredFile, inspectLog({ ...run, records: run.records.map((x) => ({ ...x, usage_known: false })) }, "t"));
    const unmeasured = readZipJson(unmeasuredFile);
    expect((unmeasured["header.json"] as typeof header).stats.model_usage["openai/fake-1"]).toBeUndefined();
    for (const [n, doc] of Object.entries(unmeasured).filter(([x]) => x.startsWith("samples/"))) {
      expect((doc as { model_usage: Record<string, unknown> }).model_usage["openai/fake-1"], n).toBeUndefined();
    }
    const name = Object.keys(entries).find((n) => n.startsWith("samples/"))!;
    type Event = { event: string; timestamp: string; working_start: number; [k: string]: unknown };
    const sample = entries[name] as { events: Event[]; attachments: Record<string, string>; messages: { id: string; role: string }[] };
    expect(schemaValidator("inspect-log.schema.json", "EvalSample")(sample)).toEqual([]);
    const kinds = sample.events.map((e) => e.event);
    expect(kinds[0]).toBe("sample_init");
    expect(kinds.filter((k) => k === "model")).toHaveLength(4);
    // Every call the model made, the malformed one too (the record counts only the calls that ran).
    expect(kinds.filter((k) => k === "tool")).toHaveLength(conversationOf(attempt!.trajectory!).turns.flatMap((t) => t.calls).length);
    expect(kinds.slice(-2)).toEqual(["score", "score"]);
    expect(sample.events.filter((e) => e.event === "score").map((e) => e.scorer)).toEqual(["gitgood", "MCR"]);
    // Times run forward from the attempt's start.
    const times = sample.events.map((e) => Date.parse(e.timestamp));
    expect(times.every((t, i) => i === 0 || t >= times[i - 1]!)).toBe(true);
    expect(times[0]).toBe(Date.parse(record.started_at));
    const models = sample.events.filter((e) => e.event === "model") as (Event & { model: string; input: { role: string; content: string }[]; output: { usage: { input_tokens: number; output_tokens: number; total_cost: number } } })[];
    expect(models.every((m) => m.model === "openai/fake-1")).toBe(true);
    // Each call's tokens and cost at the run's prices ($2 and $8 per million) add up to the attempt's.
    expect(models.reduce((a, m) => a + m.output.usage.input_tokens, 0)).toBe(record.tokens.prompt);
    for (const m of models) expect(m.output.usage.total_cost).toBeCloseTo((m.output.usage.input_tokens * 2 + m.output.usage.output_tokens * 8) / 1e6, 9);
    // A model call's input is the conversation so far; long texts are attachments the sample holds.
    expect(models[0]!.input.map((m) => m.role)).toEqual(["system", "user"]);
    expect(models[1]!.input.length).toBeGreaterThan(models[0]!.input.length);
    const refs = JSON.stringify(sample.events).match(/attachment:\/\/[0-9a-f]+/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(sample.attachments[ref.slice("attachment://".length)]).toBeDefined();
    expect(models[0]!.input[0]!.content).toMatch(/^attachment:\/\//);
    const tools = sample.events.filter((e) => e.event === "tool") as (Event & { function: string; result: string; error?: { type: string } })[];
    expect(tools[0]).toMatchObject({ function: "view_current_merge_conflict_with", arguments: { context_window_size: 2, reason: "look" } });
    expect(tools[1]).toMatchObject({ function: "resolve_current_merge_conflict_with", error: { type: "parsing" } });
    // The validator checks the events: a model event without its model fails.
    const broken = { ...sample, events: sample.events.map((e) => (e.event === "model" ? { ...e, model: undefined } : e)) };
    expect(schemaValidator("inspect-log.schema.json", "EvalSample")(broken)).not.toEqual([]);
  });

  it("keeps an agent's text that looks like an attachment reference as itself when Inspect resolves the references", () => {
    const run = readRun(ex.llmRun);
    const [a] = attemptsOf(run);
    const conv = conversationOf(a!.trajectory!);
    // The key Inspect's reader would look the system prompt up by, were it an attachment (as the export makes it).
    const systemKey = createHash("sha256").update(conv.system!).digest("hex").slice(0, 32);
    const spoof = `attachment://${systemKey}`;
    const events = a!.trajectory!.events.map((e) => (e.type === "model" && (e.message as { content: unknown }).content === "I think it is done." ? { ...e, message: { ...(e.message as object), content: spoof } } : e));
    const hostile = { ...run, store: { readTrajectory: () => ({ ...a!.trajectory!, events }) } } as unknown as RunRead;
    const file = path.join(tmp, "spoof.eval");
    writeFileSync(file, inspectLog(hostile, "t"));
    const entries = readZipJson(file);
    const sample = entries[Object.keys(entries).find((n) => n.startsWith("samples/"))!] as { messages: { content: string }[]; events: { event: string; input?: { content: string }[] }[]; attachments: Record<string, string> };
    // Inspect's reader: a text that starts with a reference is replaced by the attachment it names.
    const resolve = (t: string) => (t.startsWith("attachment://") ? (sample.attachments[t.slice("attachment://".length)] ?? t) : t);
    const original = chatMessages(conversationOf({ ...a!.trajectory!, events })).map((m) => m.content ?? "");
    expect(sample.messages.map((m) => resolve(m.content))).toEqual(original);
    expect(original).toContain(spoof);
    for (const e of sample.events.filter((x) => x.event === "model")) expect(e.input!.map((m) => resolve(m.content))).toEqual(original.slice(0, e.input!.length));
  });

  it("breaks the results down by scenario: a scorer per scenario, each sample scored by gitgood's and its scenario's", () => {
    const run = readRun(ex.oracleRun);
    const file = path.join(tmp, "oracle.eval");
    writeFileSync(file, inspectLog(run, "t"));
    const entries = readZipJson(file);
    const header = entries["header.json"] as { results: { scores: { name: string; metrics: { accuracy: { value: number } }; scored_samples: number }[] } };
    const scenarios = [...new Set(run.records.map((r) => r.scenario))].sort();
    expect(scenarios.length).toBeGreaterThan(1);
    expect(header.results.scores.map((s) => s.name)).toEqual(["gitgood", ...scenarios]);
    for (const s of scenarios) {
      const mine = run.records.filter((r) => r.scenario === s);
      const row = header.results.scores.find((x) => x.name === s)!;
      expect(row.scored_samples).toBe(mine.length);
      expect(row.metrics.accuracy.value).toBeCloseTo(mine.filter((r) => r.solved === true).length / mine.length);
    }
    const reductions = entries["reductions.json"] as { scorer: string; samples: unknown[] }[];
    expect(reductions.map((r) => r.scorer)).toEqual(["gitgood", ...scenarios]);
    for (const n of Object.keys(entries).filter((x) => x.startsWith("samples/"))) {
      const sample = entries[n] as { scores: Record<string, unknown>; metadata: { scenario: string }; events: { event: string }[] };
      expect(Object.keys(sample.scores)).toEqual(["gitgood", sample.metadata.scenario]);
      // The oracle has no model: its transcript is tool events and the scores.
      expect(sample.events.some((e) => e.event === "model")).toBe(false);
      expect(sample.events.some((e) => e.event === "tool")).toBe(true);
    }
  });

  it("is byte-for-byte the same when written twice", () => {
    const run = readRun(ex.llmRun);
    expect(inspectLog(run, "t").equals(inspectLog(run, "t"))).toBe(true);
  });
});

describe("zip writer", () => {
  it("writes archives Python's zipfile reads back exactly, deflated, with UTF-8 names", () => {
    const big = "line of text\n".repeat(1000);
    const bytes = Buffer.from([0, 1, 2, 255, 254]);
    const file = path.join(tmp, "t.zip");
    writeFileSync(file, zipArchive([{ name: "a/ü.txt", data: big }, { name: "b.bin", data: bytes }, { name: "empty", data: "" }]));
    const py = spawnSync("python3", ["-c", "import zipfile,sys,base64\nz=zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nfor i in z.infolist(): print(i.filename, i.compress_type, base64.b64encode(z.read(i)).decode())", file], { encoding: "utf8" });
    expect(py.stderr).toBe("");
    const rows = py.stdout.trim().split("\n").map((l) => l.split(" "));
    expect(rows.map((r) => r[0])).toEqual(["a/ü.txt", "b.bin", "empty"]);
    expect(rows.map((r) => r[1])).toEqual(["8", "8", "8"]);
    expect(Buffer.from(rows[0]?.[2] ?? "", "base64").toString()).toBe(big);
    expect(Buffer.from(rows[1]?.[2] ?? "", "base64").equals(bytes)).toBe(true);
    expect(Buffer.from(rows[2]?.[2] ?? "", "base64").length).toBe(0);
    for (const name of ["../x", "/x", "", "__proto__"]) expect(() => zipArchive([{ name, data: "" }])).toThrow(/bad or repeated/);
    expect(() => zipArchive([{ name: "x", data: "" }, { name: "x", data: "" }])).toThrow(/bad or repeated/);
  });

  it("gives the same bytes, dated 1980-01-01 00:00, whatever the time zone", () => {
    const entries = [{ name: "a.json", data: "{}" }];
    const saved = process.env.TZ;
    const byZone = ["UTC", "America/Los_Angeles", "Pacific/Kiritimati"].map((zone) => {
      process.env.TZ = zone;
      return zipArchive(entries);
    });
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
    expect(byZone[1]?.equals(byZone[0] as Buffer)).toBe(true);
    expect(byZone[2]?.equals(byZone[0] as Buffer)).toBe(true);
    const file = path.join(tmp, "dated.zip");
    writeFileSync(file, byZone[0] as Buffer);
    const py = spawnSync("python3", ["-c", "import zipfile,sys\nz=zipfile.ZipFile(sys.argv[1])\ni=z.infolist()[0]\nprint(i.date_time, i.create_system, oct(i.external_attr >> 16))", file], { encoding: "utf8" });
    expect(py.stdout.trim()).toBe("(1980, 1, 1, 0, 0, 0) 3 0o100644");
  });
});
