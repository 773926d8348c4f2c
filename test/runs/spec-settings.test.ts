import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseAssessment } from "../../src/a2a/assessment.js";
import { buildProgram } from "../../src/cli/main.js";
import { createAgent } from "../../src/agents/index.js";
import { planJobs } from "../../src/runs/plan.js";
import { beyondSpec, narrowedSpec, parseRunSpec, specFromOptions } from "../../src/runs/spec.js";
import { RunStore } from "../../src/runs/store.js";
import { parseTicket, ticketBase, ticketFor } from "../../src/runs/ticket.js";
import { useOneMerge } from "../helpers/one-merge.js";

/*
 * Settings of a run that moved into the spec after the first ones. The attempt's time and turn limits
 * (`--timeout`, `--max-turns`): choices of run and bench, recorded in run.json's spec (the turn budget in
 * identity.spec too, when not 40), carried by a queue ticket's spec, not an A2A request's to make. The shard
 * (`--shard K/N`): in run.json's spec only, never in the identity, null once `gitgood merge` joins the parts.
 * A run.json written before they moved (identity.max_turns, limits.timeout_s, limits.max_turns, a top-level
 * shard) still resumes as it did.
 */

const merge = useOneMerge();
const { run, silent } = merge;

type RunJson = { identity: Record<string, unknown> & { spec?: Record<string, unknown> }; limits: Record<string, unknown>; spec?: Record<string, unknown> };

const runJson = (dir: string) => merge.readRunJson<RunJson>(dir);

/** Rewrites a run's run.json as gitgood wrote it before the attempt's time and turn limits were run settings. */
function toPreviousFormat(dir: string): void {
  const json = runJson(dir);
  const { spec: identitySpec = {}, ...identity } = json.identity;
  const { max_turns: identityTurns, ...otherIdentitySpec } = identitySpec;
  const { timeout_s, max_turns, ...spec } = json.spec ?? {};
  expect(identityTurns ?? 40).toBe(max_turns);
  const previous = {
    ...json,
    identity: { ...identity, max_turns, ...(Object.keys(otherIdentitySpec).length > 0 ? { spec: otherIdentitySpec } : {}) },
    limits: { ...json.limits, timeout_s, max_turns },
    spec,
  };
  writeFileSync(path.join(dir, "run.json"), `${JSON.stringify(previous, null, 2)}\n`);
}

describe("the attempt's time and turn limits as run settings", () => {
  it("are options of run and bench with their defaults, not of worker or a2a serve", async () => {
    for (const verb of ["run", "bench"]) {
      const help = (await buildProgram(silent, verb)).commands.find((c) => c.name() === verb)?.helpInformation() ?? "";
      expect(help).toMatch(/--timeout <seconds>\s+time limit per sample and scenario \(default: 900\)/);
      expect(help).toMatch(/--max-turns <n>\s+turn budget per sample and scenario \(default: 40\)/);
    }
    const worker = (await buildProgram(silent, "worker")).commands.find((c) => c.name() === "worker")?.helpInformation() ?? "";
    expect(worker).not.toMatch(/--timeout|--max-turns/);
    const a2a = (await buildProgram(silent, "a2a")).commands.find((c) => c.name() === "a2a");
    const serve = a2a?.commands.find((c) => c.name() === "serve")?.helpInformation() ?? "";
    expect(serve).not.toContain("--timeout");
    expect(serve).not.toContain("turn budget per sample and scenario");
  });

  it("are recorded in run.json's spec, the turn budget in identity.spec when not 40, and nowhere else", async () => {
    const plain = path.join(merge.fx.scratch("runs"), "plain");
    expect((await run(plain, [])).code).toBe(0);
    const p = runJson(plain);
    expect(p.spec).toMatchObject({ timeout_s: 900, max_turns: 40 });
    expect(p.identity).not.toHaveProperty("spec");
    expect(p.identity).not.toHaveProperty("max_turns");
    expect(p.limits).toEqual({ jobs: 2 });
    const tight = path.join(merge.fx.scratch("runs"), "tight");
    const r = await run(tight, ["--timeout", "120", "--max-turns", "7"]);
    expect(r.code, r.stderr).toBe(0);
    const t = runJson(tight);
    expect(t.spec).toMatchObject({ timeout_s: 120, max_turns: 7 });
    expect(t.identity.spec).toEqual({ max_turns: 7 });
  });

  it("a run.json of the previous format resumes with the same turn budget, is refused with another, and keeps its timeout", async () => {
    const out = path.join(merge.fx.scratch("runs"), "previous");
    expect((await run(out, ["--timeout", "120", "--max-turns", "7"])).code).toBe(0);
    toPreviousFormat(out);
    expect(runJson(out).identity.max_turns).toBe(7);
    const read = RunStore.readConfig(out);
    expect(read.identity.spec).toEqual({ max_turns: 7 });
    expect(read.identity).not.toHaveProperty("max_turns");
    expect(read.spec).toMatchObject({ timeout_s: 120, max_turns: 7 });
    expect(read.limits).toEqual({ jobs: 2 });
    const again = await run(out, ["--max-turns", "7"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/already done/);
    toPreviousFormat(out);
    const other = await run(out, ["--max-turns", "8"]);
    expect(other.code).not.toBe(0);
    expect(other.stderr).toMatch(/spec\.max_turns: 7 -> 8/);
  });

  it("a previous run.json at the default budget, or made without turns (null), resumes with no spec in its identity", async () => {
    const out = path.join(merge.fx.scratch("runs"), "previous-default");
    expect((await run(out, [])).code).toBe(0);
    toPreviousFormat(out);
    expect(runJson(out).identity.max_turns).toBe(40);
    expect(RunStore.readConfig(out).identity).not.toHaveProperty("spec");
    expect((await run(out, [])).code).toBe(0);
    const json = runJson(out);
    writeFileSync(path.join(out, "run.json"), JSON.stringify({ ...json, identity: { ...json.identity, max_turns: null }, limits: { jobs: null, timeout_s: null, max_turns: null } }));
    const none = RunStore.readConfig(out);
    expect(none.identity).not.toHaveProperty("spec");
    expect(none.limits).toEqual({ jobs: null });
  });

  it("travel in a queue ticket's spec, the ticket's to choose, and an A2A request cannot make them", async () => {
    const out = path.join(merge.fx.scratch("runs"), "ticketed");
    expect((await run(out, ["--timeout", "60", "--max-turns", "5"])).code).toBe(0);
    const base = ticketBase(RunStore.readConfig(out), { agent: { name: "oracle", model: null, options: {} }, modelPrices: {}, agentModel: null });
    const [job] = planJobs([merge.sample], createAgent("oracle")).jobs;
    if (!job) throw new Error("no job planned");
    const ticket = parseTicket(JSON.parse(JSON.stringify(ticketFor(base, job))));
    expect(ticket.spec).toMatchObject({ timeout_s: 60, max_turns: 5 });
    expect(ticket).not.toHaveProperty("limits");
    expect(() => parseTicket({ ...ticket, spec: { ...ticket.spec, max_turns: 0 } })).toThrow(/spec\.max_turns/);
    expect(beyondSpec(specFromOptions({}), { timeout_s: 5000, max_turns: 400 })).toBeNull();
    expect(() => narrowedSpec(specFromOptions({}), { max_turns: 1 })).toThrow(/operator/);
    const request = JSON.stringify({ participants: { agent: "http://127.0.0.1:9/" }, config: { dataset: "d.jsonl", repo: "r", max_turns: 400 } });
    expect(parseAssessment(request).requested).not.toHaveProperty("max_turns");
  });
});

describe("the shard as a run setting", () => {
  it("is recorded in run.json's spec (null: every job), never in the identity, and a shard of a run resumes as the run", async () => {
    const whole = path.join(merge.fx.scratch("runs"), "whole");
    expect((await run(whole, [])).code).toBe(0);
    expect(runJson(whole).spec).toMatchObject({ shard: null });
    const part = path.join(merge.fx.scratch("runs"), "part");
    const r = await run(part, ["--shard", "1/2"]);
    expect(r.code, r.stderr).toBe(0);
    const p = runJson(part);
    expect(p.spec).toMatchObject({ shard: { index: 1, count: 2 } });
    expect(p).not.toHaveProperty("shard");
    expect(p.identity).toEqual(runJson(whole).identity);
    const other = await run(part, ["--shard", "2/2"]);
    expect(other.code, other.stderr).toBe(0);
    expect(runJson(part).spec).toMatchObject({ shard: { index: 2, count: 2 } });
    expect((await run(part, ["--shard", "3/2"])).stderr).toMatch(/^gitgood: --shard takes K\/N with 1 ≤ K ≤ N/);
  });

  it("a run.json of the previous format (a top-level shard) reads as the spec's shard", async () => {
    const out = path.join(merge.fx.scratch("runs"), "previous-shard");
    expect((await run(out, ["--shard", "1/2"])).code).toBe(0);
    const { spec = {}, ...json } = runJson(out);
    const { shard, ...rest } = spec;
    writeFileSync(path.join(out, "run.json"), JSON.stringify({ ...json, shard, spec: rest }));
    const read = RunStore.readConfig(out);
    expect(read.spec).toMatchObject({ shard: { index: 1, count: 2 } });
    expect(read).not.toHaveProperty("shard");
    expect(() => parseRunSpec({ ...rest, shard: { index: 3, count: 2 } }, "run.json: spec", "BAD_RUN")).toThrow(/^run\.json: spec\.shard: a shard's index is at most its count$/);
  });
});
