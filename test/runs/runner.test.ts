import { runConfig } from "../../src/runs/config.js";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/index.js";
import { ScriptedModelClient, type ModelRequest } from "../../src/testing.js";
import type { ChainSample, MergeSample, Sample } from "../../src/dataset/sample.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import type { HistoryChecks } from "../../src/scoring/history.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

let fx: Fixture;
let samples: Sample[];
let merges: MergeSample[];
let chain: ChainSample;
let dirs: ReturnType<typeof tempDirs>;
let n = 0;

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  merges = samples.filter((s): s is MergeSample => s.sample_type === "merge");
  chain = samples.find((s): s is ChainSample => s.sample_type === "file_commit_chain") as ChainSample;
  dirs = tempDirs();
});
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

async function run(agentName: string, which: readonly Sample[], extra: Partial<Parameters<typeof runBenchmark>[0]> = {}, client?: ScriptedModelClient) {
  const dir = `${dirs.out}-${n++}`;
  const agent = createAgent(agentName, { client });
  const store = RunStore.open(dir, runConfig({ samples: ["test"], agent: agent.name }, (p) => p));
  const summary = await runBenchmark({
    samples: which,
    where: { repo: fx.dir },
    agent,
    store,
    jobs: 2,
    judges: [],
    ...extra,
    spec: { timeout_s: 60, max_turns: 10, ...extra.spec },
  });
  const byKey = Object.fromEntries(summary.records.map((r) => [r.key, r]));
  return { dir, summary, byKey };
}

const checksOf = (r: { scores: Record<string, unknown> }) => r.scores.checks as HistoryChecks;

describe("oracle", () => {
  it("solves every MCR sample and reproduces IR and ICC histories", async () => {
    const { summary, byKey } = await run("oracle", samples);
    expect(summary.total).toBe(4);
    for (const m of merges) expect(byKey[`${m.id}.MCR`]).toMatchObject({ status: "success", solved: true, verdict: "solved" });
    const ir = byKey[`${chain.id}.IR`]!;
    expect(ir).toMatchObject({ status: "success", verdict: "unjudged", solved: null });
    expect(checksOf(ir)).toMatchObject({ finished: true, tree_matches_tip: true, commits: 4, original_commits: 4 });
    // The chain's four changes touch neighbouring lines, so git shows them as one hunk: ICC cannot split it.
    const icc = byKey[`${chain.id}.ICC`]!;
    expect(checksOf(icc)).toMatchObject({ finished: true, tree_matches_tip: true, commits: 1, original_commits: 4 });
  });
});

describe("baselines", () => {
  it("ours, theirs and union resolve conflicts as their names say", async () => {
    const easy = merges.filter((m) => m.difficulty === "easy");
    const ours = await run("ours", easy);
    const theirs = await run("theirs", easy);
    const union = await run("union", easy);
    const key = `${easy[0]!.id}.MCR`;
    // The recorded merge kept the merged branch's line: "theirs" reproduces it, the others do not.
    expect(theirs.byKey[key]?.solved).toBe(true);
    expect(ours.byKey[key]?.solved).toBe(false);
    expect(union.byKey[key]?.solved).toBe(false);
    const finalIo = (dir: string) => {
      const t = JSON.parse(readFileSync(path.join(dir, "trajectories", `${key}.json`), "utf8"));
      return t.final.files.find((f: { path: string }) => f.path === "io.py").content as string;
    };
    expect(finalIo(ours.dir)).toContain("io3 = 'main'\nio4");
    expect(finalIo(union.dir)).toContain("io3 = 'main'\nio3 = 'topic'\nio4");
  });

  it("keep leaves the history as it was; squash-fixups folds the typo fix", async () => {
    const keep = await run("keep", [chain]);
    const squash = await run("squash-fixups", [chain]);
    const k = checksOf(keep.byKey[`${chain.id}.IR`]!);
    const s = checksOf(squash.byKey[`${chain.id}.IR`]!);
    expect(k).toMatchObject({ commits: 4, tree_matches_tip: true });
    expect(s).toMatchObject({ commits: 3, tree_matches_tip: true });
    const t = JSON.parse(readFileSync(path.join(squash.dir, "trajectories", `${chain.id}.IR.json`), "utf8"));
    expect(t.final.commits.map((c: { message: string }) => c.message)).toEqual(["Add sub()", "Add mul()", "Add div()"]);
  });

  it("one-commit makes one commit and keeps the tree (per-file on several files: test/scenarios/baselines.test.ts)", async () => {
    const one = checksOf((await run("one-commit", [chain])).byKey[`${chain.id}.ICC`]!);
    expect(one).toMatchObject({ commits: 1, tree_matches_tip: true, finished: true });
  });

  it("skips scenarios a baseline does not work", async () => {
    const { summary } = await run("ours", samples);
    expect(summary.total).toBe(2);
    expect(summary.unsupported).toBe(2);
  });
});

describe("llm agent with a scripted model", () => {
  it("completes an MCR scenario through tool calls, survives malformed calls, and records tokens", async () => {
    const easy = merges.find((m) => m.difficulty === "easy")!;
    const model = new ScriptedModelClient([
      { tool_calls: [{ name: "view_current_merge_conflict_with", arguments: { context_window_size: 2, reason: "look" } }] },
      { tool_calls: [{ name: "resolve_current_merge_conflict_with", arguments: "{not json" }] },
      { tool_calls: [{ name: "no_such_tool", arguments: { reason: "try" } }] },
      { content: "I am done." },
      { tool_calls: [{ name: "resolve_current_merge_conflict_with", arguments: { content: "io3 = 'topic'\n", reason: "keep topic" } }] },
    ]);
    const { byKey, dir } = await run("llm", [easy], {}, model);
    const r = byKey[`${easy.id}.MCR`]!;
    expect(r).toMatchObject({ status: "success", solved: true, turns: 5, tool_calls: 3 });
    expect(r.tokens).toEqual({ prompt: 50, completion: 25 });
    const toolMessages = (req: ModelRequest | undefined) => (req?.messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);
    expect(toolMessages(model.requests[2]).at(-1)).toMatch(/not valid JSON/);
    expect(toolMessages(model.requests[3]).at(-1)).toMatch(/there is no tool 'no_such_tool'/);
    expect(model.requests[4]?.messages.at(-1)?.content).toMatch(/not finished yet/);
    expect(model.requests[0]?.tools?.map((t) => t.function.name)).toContain("resolve_current_merge_conflict_with");
    const t = JSON.parse(readFileSync(path.join(dir, r.trajectory!), "utf8"));
    expect(t.events.filter((e: { type: string }) => e.type === "model")).toHaveLength(5);
  });

  it("stops at the turn limit without an error", async () => {
    const easy = merges.find((m) => m.difficulty === "easy")!;
    const looping = new ScriptedModelClient(
      Array.from({ length: 20 }, () => ({ tool_calls: [{ name: "view_current_merge_conflict_with", arguments: { context_window_size: 0, reason: "again" } }] })),
    );
    const { byKey } = await run("llm", [easy], { spec: { max_turns: 3 } }, looping);
    expect(byKey[`${easy.id}.MCR`]).toMatchObject({ status: "success", solved: false, turns: 3 });
  });
});

describe("judge in a run", () => {
  const say = (better: string) => JSON.stringify({ better, reason: "r" });
  it("marks IR solved only when the agent's history wins both orders", async () => {
    const win = await run("keep", [chain], { judges: [new ScriptedModelClient([say("1"), say("2")], "judge")] });
    expect(win.byKey[`${chain.id}.IR`]).toMatchObject({ solved: true, verdict: "solved" });
    const split = await run("keep", [chain], { judges: [new ScriptedModelClient([say("1"), say("1")], "judge")] });
    expect(split.byKey[`${chain.id}.IR`]).toMatchObject({ solved: false, verdict: "unsolved" });
  });
});

describe("failures are data", () => {
  it("records a missing repository and a time-out as errors and goes on", async () => {
    const agent = createAgent("command", { command: "sleep 30" });
    const store = RunStore.open(`${dirs.out}-fail`, runConfig({ samples: ["t"], agent: agent.name }, (p) => p));
    const summary = await runBenchmark({
      samples: merges,
      where: { repo: fx.dir },
      agent,
      store,
      jobs: 2,
      spec: { timeout_s: 1, max_turns: 5 },
      judges: [],
    });
    expect(summary.records.map((r) => [r.status, r.error?.code])).toEqual([
      ["error", "TIMEOUT"],
      ["error", "TIMEOUT"],
    ]);
    const missing = await runBenchmark({
      samples: [merges[0]!],
      where: { repos: path.join(dirs.out, "nowhere") },
      agent: createAgent("oracle"),
      store: RunStore.open(`${dirs.out}-missing`, runConfig({ samples: ["t"], agent: "oracle" }, (p) => p)),
      jobs: 1,
      spec: { timeout_s: 10, max_turns: 5 },
      judges: [],
    });
    expect(missing.records[0]).toMatchObject({ status: "error", verdict: "error", error: { code: "REPO_NOT_FOUND" } });
  });
});

describe("--memory", () => {
  it("appends every step of the agent to the branch's log.md itself, so the log view shows them without memory_log", async () => {
    const easy = merges.find((m) => m.difficulty === "easy")!;
    const resolve = { tool_calls: [{ name: "resolve_current_merge_conflict_with", arguments: { content: "io3 = 'topic'\n", reason: "take topic" } }] };
    // The model looks at the conflict, reads its log, then resolves: it never calls memory_log.
    const model = new ScriptedModelClient(
      Array.from({ length: 8 }, () => (req: ModelRequest) => {
        const names = req.tools?.map((t) => t.function.name) ?? [];
        const used = req.messages.filter((m) => m.role === "tool").length;
        if (!names.includes("memory_context")) return resolve;
        if (used === 0) return { content: "Looking at the conflict first.", tool_calls: [{ name: "view_current_merge_conflict_with", arguments: { context_window_size: 2, reason: "look" } }] };
        if (used === 1) return { tool_calls: [{ name: "memory_context", arguments: { log: true, reason: "what did I do" } }] };
        return resolve;
      }),
    );
    const { byKey, dir } = await run("llm", [easy], { spec: { memory: true }, jobs: 1 }, model);
    const withMemory = byKey[`${easy.id}.MCR+memory`]!;
    const t = JSON.parse(readFileSync(path.join(dir, withMemory.trajectory!), "utf8"));
    const results = t.events.filter((e: { type: string }) => e.type === "tool_result") as { tool: string; output: string }[];
    const logView = results.find((r) => r.tool === "memory_context")!.output;
    expect(logView).toContain("- thought: Looking at the conflict first.");
    expect(logView).toMatch(/- action: view_current_merge_conflict_with \{"context_window_size":2/);
    expect(logView).toContain("- observation: ");
  });


  it("runs each scenario without and with the memory tools and reports both", async () => {
    const easy = merges.find((m) => m.difficulty === "easy")!;
    const resolve = { tool_calls: [{ name: "resolve_current_merge_conflict_with", arguments: { content: "io3 = 'topic'\n", reason: "take topic" } }] };
    // The scripted model answers by what it is offered: with memory tools it first logs and commits a note.
    const model = new ScriptedModelClient(
      Array.from({ length: 6 }, () => (req: ModelRequest) => {
        const names = req.tools?.map((t) => t.function.name) ?? [];
        const used = req.messages.filter((m) => m.role === "tool").length;
        if (names.includes("memory_log") && used === 0) {
          return { tool_calls: [{ name: "memory_log", arguments: { observation: "io3 differs", thought: "topic wins", action: "resolve", reason: "note" } }] };
        }
        if (names.includes("memory_commit") && used === 1) {
          return { tool_calls: [{ name: "memory_commit", arguments: { contribution: "Decided to keep the topic line.", reason: "save" } }] };
        }
        return resolve;
      }),
    );
    const { summary, byKey, dir } = await run("llm", [easy], { spec: { memory: true }, jobs: 1 }, model);
    expect(summary.total).toBe(2);
    const plain = byKey[`${easy.id}.MCR`]!;
    const withMemory = byKey[`${easy.id}.MCR+memory`]!;
    expect(plain).toMatchObject({ agent: "llm:scripted", solved: true, tool_calls: 1 });
    expect(withMemory).toMatchObject({ agent: "llm:scripted+memory", solved: true, tool_calls: 3 });
    const t = JSON.parse(readFileSync(path.join(dir, withMemory.trajectory!), "utf8"));
    const results = t.events.filter((e: { type: string }) => e.type === "tool_result");
    expect(results[1].output).toMatch(/Committed entry #1 on branch main/);
    const { buildReport } = await import("../../src/report/summary.js");
    const report = buildReport({ records: summary.records });
    expect(report.agents).toEqual(["llm:scripted", "llm:scripted+memory"]);
    expect(report.totals.filter((r) => r.scenario === "MCR").map((r) => [r.agent, r.solve_rate])).toEqual([
      ["llm:scripted", 100],
      ["llm:scripted+memory", 100],
    ]);
  });
});
