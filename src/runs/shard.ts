import { createHash } from "node:crypto";
import { GitGoodError } from "../errors.js";
import type { Job } from "./plan.js";

/** Part `index` (1-based) of `count` equal parts of a run's planned jobs (`--shard K/N`). */
export interface Shard {
  index: number;
  count: number;
}

/** Parses `--shard K/N` (1 ≤ K ≤ N); anything else is a one-line usage error. */
export function parseShard(value: string): Shard {
  const m = /^\s*(\d{1,6})\s*\/\s*(\d{1,6})\s*$/.exec(value);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) {
    throw new GitGoodError("BAD_OPTION", `--shard takes K/N with 1 ≤ K ≤ N (part K of N, e.g. 1/4), not '${value}'`);
  }
  return { index, count };
}

/** The group whose jobs a shard takes its fair part of: one scenario of one repository, one variant and repeat. */
function groupOf(job: Job): string {
  return [job.scenario.name, job.sample.name, job.memory ? "memory" : "", String(job.repeat)].join("\u0000");
}

/** Where a group's round-robin starts, from its name alone, so that the groups' odd jobs spread over the shards. */
function startOf(group: string, count: number): number {
  return createHash("sha256").update(group).digest().readUInt32BE(0) % count;
}

/**
 * The jobs of shard `shard` among `jobs` (in plan order). Within each group (scenario × repository ×
 * memory variant × repeat) the jobs are dealt round-robin over the shards in plan order, which is sample
 * file order, from a start that depends on the group's name only. So every shard gets its group's share to
 * within one job, the shards together hold every job once, and a samples file that grows at its end only
 * adds jobs at the ends of the groups: no job already planned changes shard.
 */
export function shardJobs(jobs: readonly Job[], shard: Shard): Job[] {
  if (shard.count === 1) return [...jobs];
  const seen = new Map<string, number>();
  return jobs.filter((job) => {
    const group = groupOf(job);
    const position = seen.get(group) ?? 0;
    seen.set(group, position + 1);
    return (startOf(group, shard.count) + position) % shard.count === shard.index - 1;
  });
}

/** `K/N`, as the option spells it. */
export function shardLabel(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}
