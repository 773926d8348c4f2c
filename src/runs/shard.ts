import { createHash } from "node:crypto";
import { GitGoodError } from "../errors.js";
import type { Job } from "./types.js";

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

/** The group whose jobs a shard takes its fair part of: one scenario of one repository. */
function groupOf(job: Job): string {
  return `${job.scenario.name}\u0000${job.sample.name}`;
}

/** Where a group's round-robin starts, from its name alone, so that the groups' odd jobs spread over the shards. */
function startOf(group: string, count: number): number {
  return createHash("sha256").update(group).digest().readUInt32BE(0) % count;
}

/**
 * The jobs of shard `shard` among `jobs` (a run's plan). Within each group (a scenario of a repository)
 * the jobs are dealt round-robin over the shards, in the order of their samples in the samples file and,
 * for one sample, of its repeats and memory variants, from a start that depends on the group's name only.
 * So every shard gets its group's share to within one job, the shards together hold every job once, and a
 * samples file that grows at its end only adds jobs after the groups' last ones: no job already planned
 * changes shard.
 */
export function shardJobs(jobs: readonly Job[], shard: Shard): Job[] {
  if (shard.count === 1) return [...jobs];
  // Slots per sample: its repeats times its variants (the run's settings, the same for every sample).
  const variants = jobs.some((j) => j.memory) ? 2 : 1;
  const repeats = Math.max(0, ...jobs.map((j) => j.repeat)) + 1;
  // A sample's place in its group: its order of first appearance, which is samples file order (plans are passes over the file).
  const ordinals = new Map<string, Map<string, number>>();
  const placeOf = (job: Job): number => {
    const group = groupOf(job);
    const seen = ordinals.get(group) ?? new Map<string, number>();
    ordinals.set(group, seen);
    const ordinal = seen.get(job.sample.id) ?? seen.size;
    seen.set(job.sample.id, ordinal);
    return (ordinal * repeats + job.repeat) * variants + (job.memory ? 1 : 0);
  };
  return jobs.filter((job) => (startOf(groupOf(job), shard.count) + placeOf(job)) % shard.count === shard.index - 1);
}
