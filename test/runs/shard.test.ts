import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/index.js";
import type { Sample } from "../../src/dataset/sample.js";
import { planJobs, type Job } from "../../src/runs/plan.js";
import { parseShard, shardJobs, type Shard } from "../../src/runs/shard.js";
import { chainSample, mergeSample, syntheticDataset } from "../helpers/dataset.js";

const oracle = createAgent("oracle");

/** Which shard of `count` each job of the plan falls in, by key. */
function shardOf(jobs: readonly Job[], count: number): Map<string, number> {
  const out = new Map<string, number>();
  for (let index = 1; index <= count; index++) {
    for (const job of shardJobs(jobs, { index, count })) {
      expect(out.has(job.key), `${job.key} is in two shards`).toBe(false);
      out.set(job.key, index);
    }
  }
  return out;
}

describe("parseShard", () => {
  it("reads K/N with 1 ≤ K ≤ N", () => {
    expect(parseShard("1/4")).toEqual<Shard>({ index: 1, count: 4 });
    expect(parseShard(" 4 / 4 ")).toEqual<Shard>({ index: 4, count: 4 });
    expect(parseShard("1/1")).toEqual<Shard>({ index: 1, count: 1 });
  });

  it.for(["0/4", "5/4", "1/0", "", "1", "a/b", "1/2/3", "-1/2", "1.5/2", "1e3/2000"])("refuses '%s' in one line", (value) => {
    expect(() => parseShard(value)).toThrow(`--shard takes K/N with 1 ≤ K ≤ N (part K of N, e.g. 1/4), not '${value}'`);
  });
});

describe("shardJobs", () => {
  const samples = syntheticDataset(12, ["Python", "Java"], 4);
  const opts = { repeats: 2, memory: true };
  const { jobs } = planJobs(samples, oracle, opts);

  it.for([2, 3, 5])("deals every job to exactly one of %i shards, each scenario × repository's share to within one job", (count) => {
    const of = shardOf(jobs, count);
    expect(of.size).toBe(jobs.length);
    const perGroup = new Map<string, number[]>();
    for (const job of jobs) {
      const group = `${job.scenario.name} ${job.sample.name}`;
      const counts = perGroup.get(group) ?? new Array<number>(count).fill(0);
      counts[(of.get(job.key) as number) - 1]! += 1;
      perGroup.set(group, counts);
    }
    for (const [group, counts] of perGroup) expect(Math.max(...counts) - Math.min(...counts), group).toBeLessThanOrEqual(1);
    // The groups' odd jobs spread over the shards: the shards' sizes are close to equal.
    const sizes = [...new Array<number>(count).keys()].map((k) => shardJobs(jobs, { index: k + 1, count }).length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(Math.ceil(jobs.length * 0.1));
  });

  it("keeps every planned job in its shard when the samples file grows at its end (new samples of known and new repositories)", () => {
    const more: Sample[] = [
      mergeSample({ name: "python-org/repo1", index: 900 }),
      chainSample({ name: "python-org/repo1", index: 901 }),
      mergeSample({ name: "java-org/repo0", index: 902 }),
      mergeSample({ name: "go-org/new", index: 903 }),
      chainSample({ name: "go-org/new", index: 904 }),
    ];
    const grown = planJobs([...samples, ...more], oracle, opts).jobs;
    expect(grown.length).toBeGreaterThan(jobs.length);
    for (const count of [2, 3, 7]) {
      const before = shardOf(jobs, count);
      const after = shardOf(grown, count);
      for (const [key, shard] of before) expect(after.get(key), key).toBe(shard);
    }
  });

  it("is all the jobs, in plan order, for 1/1", () => {
    expect(shardJobs(jobs, { index: 1, count: 1 })).toEqual(jobs);
  });
});
