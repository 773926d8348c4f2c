import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/index.js";
import type { MergeSample, Sample } from "../../src/dataset/sample.js";
import { runConfig } from "../../src/runs/config.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import { gitgood } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

/*
 * `gitgood report A B --diff` on two runs made here: the oracle solves both merges, `ours` fails the one
 * whose recorded merge took the other side; the diff names that flip with its labels, both ways round.
 */

let fx: Fixture;
let merges: MergeSample[];
let dirs: ReturnType<typeof tempDirs>;
const oracleDir = () => `${dirs.out}-oracle`;
const oursDir = () => `${dirs.out}-ours`;

async function run(dir: string, agentName: string, samples: readonly Sample[]): Promise<void> {
  const agent = createAgent(agentName);
  const store = RunStore.open(dir, runConfig({ samples: ["test"], agent: agent.name, where: { repo: fx.dir } }, (p) => p));
  await runBenchmark({ samples, spec: { timeout_s: 60, max_turns: 10, scenarios: ["MCR"] }, where: { repo: fx.dir }, agent, store, jobs: 1, judges: [] });
}

beforeAll(async () => {
  let samples: Sample[];
  ({ fx, samples } = await buildRunFixture());
  merges = samples.filter((s): s is MergeSample => s.sample_type === "merge");
  dirs = tempDirs();
  await run(oracleDir(), "oracle", merges);
  await run(oursDir(), "ours", merges);
  await run(`${dirs.out}-oracle-again`, "oracle", merges);
});
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

describe("report --diff", () => {
  it("lists the attempts solved in A and not in B with B's labels, and the labels that grew", async () => {
    const ours = RunStore.read(oursDir()).records;
    const failed = ours.filter((r) => r.solved === false);
    expect(failed.length).toBeGreaterThan(0);
    const r = await gitgood(["report", oracleDir(), oursDir(), "--diff"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Solved in A, not in B (${failed.length}):`);
    for (const f of failed) expect(r.stdout).toContain(`${f.key}  B: ${(f.failure_labels ?? []).join(", ")}`);
    expect(r.stdout).toContain("Solved in B, not in A (0):");
    expect(r.stdout).toMatch(new RegExp(`region_resolved_differently\\s+0 → ${failed.length}  grew by ${failed.length}`));
  });

  it("the other way round, the same attempts are gained and the labels shrank", async () => {
    const failed = RunStore.read(oursDir()).records.filter((r) => r.solved === false);
    const r = await gitgood(["report", oursDir(), oracleDir(), "--diff"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Solved in A, not in B (0):");
    expect(r.stdout).toContain(`Solved in B, not in A (${failed.length}):`);
    expect(r.stdout).toMatch(/region_resolved_differently\s+\d+ → 0 {2}shrank by/);
  });

  it("attempts solved in both runs are not listed, and no label changes", async () => {
    const r = await gitgood(["report", oracleDir(), `${dirs.out}-oracle-again`, "--diff"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Solved in A, not in B (0):");
    expect(r.stdout).toContain("Solved in B, not in A (0):");
    expect(r.stdout).toContain("(none in either run)");
  });

  it("with --json prints the same diff as JSON: the flips with their labels and the label counts", async () => {
    const failed = RunStore.read(oursDir()).records.filter((r) => r.solved === false);
    const r = await gitgood(["report", oracleDir(), oursDir(), "--diff", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout) as { a: string; b: string; lost: { key: string; labels_b: string[] }[]; gained: unknown[]; labels: { label: string; a: number; b: number }[] };
    expect(d.lost.map((f) => [f.key, f.labels_b])).toEqual(failed.map((f) => [f.key, f.failure_labels ?? []]));
    expect(d.gained).toEqual([]);
    expect(d.labels).toContainEqual({ label: "region_resolved_differently", a: 0, b: failed.length });
  });

  it("one run directory or three is a one-line error", async () => {
    const one = await gitgood(["report", oracleDir(), "--diff"]);
    expect(one.code).not.toBe(0);
    expect(one.stderr.trim().split("\n")).toHaveLength(1);
    expect(one.stderr).toContain("--diff compares two run directories");
    const three = await gitgood(["report", oracleDir(), oursDir(), `${dirs.out}-oracle/`, "--diff"]);
    expect(three.code).not.toBe(0);
  });

  it("the text and JSON reports give the skill profile and the label counts", async () => {
    const text = await gitgood(["report", oursDir()]);
    expect(text.stdout).toMatch(/Skills \(per agent, across families\):\n\s+ours\s+resolve_conflict\s+\d+\/2/);
    expect(text.stdout).toContain("region_resolved_differently");
    const json = await gitgood(["report", oursDir(), "--json"]);
    const parsed = JSON.parse(json.stdout) as { skills: { skill: string; attempts: number }[]; failure_labels: { label: string }[] };
    expect(parsed.skills).toEqual([expect.objectContaining({ agent: "ours", skill: "resolve_conflict", attempts: 2 })]);
    expect(parsed.failure_labels.map((l) => l.label)).toContain("region_resolved_differently");
  });
});
