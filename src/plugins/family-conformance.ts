import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createAgent } from "../agents/index.js";
import type { Sample } from "../dataset/sample.js";
import type { FamilyDefinition } from "../families/definition.js";
import { families, registerFamily } from "../families/registry.js";
import { runConfig } from "../runs/config.js";
import type { ResultRecord } from "../runs/record.js";
import { runBenchmark } from "../runs/runner.js";
import { RunStore } from "../runs/store.js";
import { fail, type ConformanceCheck } from "./conformance.js";

/** What the family suite works on: a repository built for it, and how the family mines samples from it. */
export interface FamilyFixture {
  /** The repository the samples come from. */
  repo: string;
  /** Mines samples from `repo` (the family's own miner, or its `gitgood mine` mode called as a function). */
  mine(repo: string): Promise<readonly Sample[]>;
  /** The family's settings for the run (`{ toysum: { hint: true } }`), as its options would make them. */
  settings?: Record<string, unknown>;
}

/** Runs the agent of `name` on every sample for the family's scenarios; the records of those scenarios. */
async function attempts(family: FamilyDefinition, fixture: FamilyFixture, samples: readonly Sample[], name: string): Promise<ResultRecord[]> {
  const out = mkdtempSync(path.join(os.tmpdir(), "gitgood-family-conformance-"));
  try {
    const agent = createAgent(name);
    const scenarios = family.scenarios.map((s) => s.name);
    const summary = await runBenchmark({
      samples,
      where: { repo: fixture.repo },
      agent,
      store: RunStore.open(path.join(out, "run"), runConfig({ samples: ["conformance"], agent: agent.name }, (p) => p)),
      jobs: 1,
      judges: [],
      spec: { scenarios, timeout_s: 300, max_turns: 50 },
      settings: fixture.settings,
    });
    return summary.records.filter((r) => scenarios.includes(r.scenario));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const described = (records: readonly ResultRecord[]) => records.map((r) => `${r.sample_id}/${r.scenario}: ${r.status} ${r.verdict}${r.error ? ` (${r.error.message})` : ""}`).join("; ");

/**
 * The checks every family must pass on a fixture of its own: it mines at least one sample from it, each
 * taken by one of its scenarios; mining again gives the same ids, none twice; the oracle of its scenarios
 * solves every sample; no baseline of its scenarios solves them all. The family is registered for the
 * checks when it is not yet.
 */
export function familyConformance(family: FamilyDefinition, fixture: FamilyFixture): ConformanceCheck[] {
  if (!families().includes(family)) registerFamily(family);
  let mined: readonly Sample[] | null = null;
  const samples = async () => (mined ??= await fixture.mine(fixture.repo));
  const name = family.name;
  const baselines = [...new Set(family.scenarios.flatMap((s) => (s.baselines ?? []).map((b) => b.name)))];
  return [
    {
      name: `${name}: mines samples its scenarios take`,
      skip: null,
      async run() {
        const got = await samples();
        if (got.length === 0) fail("no sample was mined from the fixture");
        const orphan = got.find((s) => !family.scenarios.some((sc) => sc.accepts(s)));
        if (orphan) fail(`no scenario of ${name} takes the mined sample ${orphan.id}`);
      },
    },
    {
      name: `${name}: mining again gives the same ids, none twice`,
      skip: null,
      async run() {
        const first = (await samples()).map((s) => s.id);
        const again = (await fixture.mine(fixture.repo)).map((s) => s.id);
        if (new Set(first).size !== first.length) fail(`an id was mined twice: ${first.join(", ")}`);
        if (JSON.stringify([...first].sort()) !== JSON.stringify([...again].sort())) fail(`the ids changed between two minings: ${first.join(", ")} then ${again.join(", ")}`);
      },
    },
    {
      name: `${name}: its oracle solves every sample`,
      skip: null,
      async run() {
        const records = await attempts(family, fixture, await samples(), "oracle");
        if (records.length === 0 || records.some((r) => r.solved !== true)) fail(`the oracle did not solve every sample: ${described(records)}`);
      },
    },
    {
      name: `${name}: no baseline solves every sample`,
      skip: baselines.length === 0 ? `${name} has no baseline` : null,
      async run() {
        for (const baseline of baselines) {
          const records = await attempts(family, fixture, await samples(), baseline);
          if (records.length > 0 && records.every((r) => r.solved === true)) fail(`the baseline ${baseline} solved every sample: ${described(records)}`);
        }
      },
    },
  ];
}
