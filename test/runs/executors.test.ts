import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/index.js";
import type { Sample } from "../../src/dataset/sample.js";
import { runConfig, type RunConfigInput } from "../../src/runs/config.js";
import { mergeRuns } from "../../src/runs/merge.js";
import { planJobs } from "../../src/runs/plan.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { runBenchmark } from "../../src/runs/runner.js";
import type { Shard } from "../../src/runs/shard.js";
import { RunStore } from "../../src/runs/store.js";
import { runTicket, ticketFor } from "../../src/runs/ticket.js";
import { ticketScenarioSettings } from "../../src/families/options.js";
import { RunWriter } from "../../src/runs/writer.js";
import type { Fixture } from "../helpers/fixture.js";
import { gitgood } from "../helpers/cli.js";
import { buildRunFixture, builtInTicketBase, tempDirs } from "../helpers/runs.js";

let fx: Fixture;
let samples: Sample[];
let dirs: ReturnType<typeof tempDirs>;
let n = 0;

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  dirs = tempDirs();
});
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

const newDir = () => `${dirs.out}-${n++}`;
const identity = (agent: string, extra: Partial<RunConfigInput> = {}) => runConfig({ samples: ["fixture"], agent, where: { repo: fx.dir }, ...extra }, (p) => p);

/** Runs `agentName` on the fixture's samples through this process's pool into a new run directory. */
async function local(agentName: string, opts: { shard?: Shard; dir?: string; timeoutSeconds?: number } = {}) {
  const dir = opts.dir ?? newDir();
  const agent = createAgent(agentName);
  const store = RunStore.open(dir, identity(agent.name, { spec: { shard: opts.shard ?? null } }));
  const summary = await runBenchmark({ samples, where: { repo: fx.dir }, agent, store, jobs: 2, spec: { timeout_s: opts.timeoutSeconds ?? 60, max_turns: 10, shard: opts.shard ?? null }, judges: [] });
  return { dir, summary };
}

/** What must not depend on where a job ran: its key, status, verdict and scores (not timings). */
function outcomes(records: readonly ResultRecord[]) {
  return [...records]
    .sort((a, b) => (a.key < b.key ? -1 : 1))
    .map((r) => ({ key: r.key, status: r.status, verdict: r.verdict, solved: r.solved, error: r.error?.code ?? null, scores: r.scores }));
}

/** Every file of a directory tree with its size and modification time, to see that nothing changed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file)] = `${statSync(file).mtimeMs}:${readFileSync(file, "utf8")}`;
  }
  return out;
}

/** The runs of the first tests, by agent, for the merge tests to reuse (attempts are the slow part). */
const shards = new Map<string, { s1: string; s2: string; ran2: number; records2: ResultRecord[] }>();

// Minutes of budget: a loaded 2-core machine takes seconds per attempt.
const SLOW = 300_000;

describe("the same records through every executor", () => {
  it.for(["oracle", "baseline"])("%s: the local pool, shards 1/2 + 2/2 merged, and (oracle) tickets run one by one agree", { timeout: SLOW }, async (agentName) => {
    const whole = await local(agentName);
    expect(whole.summary.ran).toBe(4);

    const s1 = await local(agentName, { shard: { index: 1, count: 2 } });
    const s2 = await local(agentName, { shard: { index: 2, count: 2 } });
    // Each shard ran its part, the two parts are the whole, and run.json says which part it is.
    expect(s1.summary.ran + s2.summary.ran).toBe(4);
    expect(s1.summary.ran).toBeGreaterThan(0);
    expect(s2.summary.ran).toBeGreaterThan(0);
    expect(RunStore.readConfig(s1.dir).spec?.shard).toEqual({ index: 1, count: 2 });
    shards.set(agentName, { s1: s1.dir, s2: s2.dir, ran2: s2.summary.ran, records2: s2.summary.records });
    const merged = newDir();
    expect(mergeRuns(merged, [s1.dir, s2.dir])).toEqual({ records: 4, duplicates: 0, errorsReplaced: 0 });
    const mergedRun = RunStore.read(merged);
    expect(outcomes(mergedRun.records)).toEqual(outcomes(whole.summary.records));
    expect(mergedRun.config.spec?.shard).toBeNull();
    expect(mergedRun.config.identity).toEqual(RunStore.readConfig(whole.dir).identity);
    const reader = RunStore.openExisting(merged);
    for (const r of mergedRun.records) expect(reader.readTrajectory(r.trajectory as string)).toMatchObject({ sample_id: r.sample_id });

    // A run resumed in the merged directory finds everything done.
    const resumed = await local(agentName, { dir: merged });
    expect([resumed.summary.ran, resumed.summary.resumed]).toEqual([0, 4]);
    if (agentName !== "oracle") return;

    // Tickets: plain JSON through a serialisation, run by runTicket, written by the run's one writer.
    const tickets = newDir();
    const agent = createAgent(agentName);
    const store = RunStore.open(tickets, identity(agent.name));
    const base = builtInTicketBase(tickets, agentName);
    const writer = new RunWriter(store);
    for (const job of planJobs(samples, agent).jobs) {
      const ticket = JSON.parse(JSON.stringify(ticketFor(base, job))) as ReturnType<typeof ticketFor>;
      writer.write(await runTicket(ticket, { where: { repo: fx.dir }, settings: ticketScenarioSettings }));
    }
    expect(outcomes(RunStore.read(tickets).records)).toEqual(outcomes(whole.summary.records));
  });
});

describe("runTicket", () => {
  it("refuses a ticket that does not agree with itself, in one line", async () => {
    const agent = createAgent("oracle");
    const dir = newDir();
    RunStore.open(dir, identity(agent.name));
    const base = builtInTicketBase(dir);
    const job = planJobs(samples, agent).jobs[0]!;
    const env = { where: { repo: fx.dir }, settings: ticketScenarioSettings };
    await expect(runTicket({ ...ticketFor(base, job), key: "other.MCR" }, env)).rejects.toMatchObject({ code: "BAD_TICKET" });
    await expect(runTicket({ ...ticketFor(base, job), agent: { ...base.agent, name: "baseline" } }, env)).rejects.toMatchObject({ code: "BAD_TICKET" });
    await expect(runTicket({ ...ticketFor(base, job), spec: { ...base.spec, timeout_s: -1 } }, env)).rejects.toThrow(/^not a job ticket: spec\.timeout_s: /);
  });
});

describe("gitgood merge", () => {
  it("replaces an error by a later result, never changes its inputs, and refuses another run's directory or an OUT in the way", { timeout: SLOW }, async () => {
    // Timed out at once: every attempt an error record.
    const failed = await local("oracle", { timeoutSeconds: 0.001 });
    expect(failed.summary.records.every((r) => r.status === "error")).toBe(true);
    const oracle = shards.get("oracle");
    const baseline = shards.get("baseline");
    if (!oracle || !baseline) throw new Error("the executor tests above did not run");
    const partial = { dir: oracle.s2, summary: { ran: oracle.ran2, records: oracle.records2 } };
    const before = [snapshot(failed.dir), snapshot(partial.dir)];

    const out = newDir();
    const r = await gitgood(["merge", out, failed.dir, partial.dir]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const replaced = partial.summary.ran;
    expect(r.stdout).toBe(`merged 2 run directories into ${out}: 4 records; ${replaced} error record(s) replaced by a later result\n`);
    const byKey = new Map(RunStore.read(out).records.map((x) => [x.key, x]));
    for (const p of partial.summary.records) expect(byKey.get(p.key)).toMatchObject({ status: "success", started_at: p.started_at });
    expect([...byKey.values()].filter((x) => x.status === "error")).toHaveLength(4 - replaced);
    expect([snapshot(failed.dir), snapshot(partial.dir)]).toEqual(before);

    const other = { dir: baseline.s1 };
    const refused = await gitgood(["merge", newDir(), failed.dir, other.dir]);
    expect([refused.code, refused.stdout]).toEqual([2, ""]);
    expect(refused.stderr).toBe(`gitgood: ${other.dir} holds another run than ${failed.dir} (agent: "oracle" -> "baseline"); merge joins the shards and partial runs of one run\n`);

    const intoInput = await gitgood(["merge", failed.dir, failed.dir, partial.dir]);
    expect([intoInput.code, intoInput.stderr]).toEqual([2, `gitgood: OUT ${failed.dir} is one of the run directories to merge; give a new directory (the inputs are never changed)\n`]);
    const notEmpty = await gitgood(["merge", out, partial.dir]);
    expect([notEmpty.code, notEmpty.stderr]).toEqual([2, `gitgood: OUT ${out} is not empty; give a new or empty directory\n`]);
    expect([snapshot(failed.dir), snapshot(partial.dir)]).toEqual(before);
  });
});

describe("gitgood run --shard", () => {
  it.for(["0/2", "3/2", "1/0", "half", "1/2/3", "-1/2"])("refuses --shard %s in one line, exit 2", async (value) => {
    const r = await gitgood(["run", "samples.jsonl", "--repo", fx.dir, "--shard", value, "--out", newDir()]);
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toMatch(/^gitgood: --shard takes K\/N with 1 ≤ K ≤ N \(part K of N, e\.g\. 1\/4\), not '.*'\n$/);
  });
});
