import { existsSync, mkdirSync, readdirSync, realpathSync, renameSync, rmdirSync, rmSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { writeOutputFile } from "../util/output.js";
import type { RunConfig } from "./config.js";
import type { ResultRecord } from "./record.js";
import { RESULTS_FILE, RUN_FILE, RunStore, describeDifferences, identityDifferences, trajectoryPath } from "./store.js";
import { SHARD } from "./spec.js";

export interface MergeSummary {
  /** Records in the merged run directory, one per key. */
  records: number;
  /** Keys recorded in more than one input, for which one record was chosen. */
  duplicates: number;
  /** Keys whose error record was replaced by another input's result. */
  errorsReplaced: number;
}

/** Whether `candidate` takes the place of `current` for their key: a result beats an error; else the later attempt wins. */
function supersedes(candidate: ResultRecord, current: ResultRecord): boolean {
  const rank = (r: ResultRecord) => (r.status === "error" ? 0 : 1);
  if (rank(candidate) !== rank(current)) return rank(candidate) > rank(current);
  return Date.parse(candidate.started_at) >= Date.parse(current.started_at);
}

function realOrResolved(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * Joins run directories of one run (the shards of `--shard K/N`, partial runs on several machines) into
 * `out`: one record per key (a result replacing an error; of two results or two errors, the later
 * attempt), each with its trajectory, and run.json of the first input without its shard. Refuses inputs
 * whose identities differ (RUN_MISMATCH), before anything is written. The inputs are only read. `out`
 * must be new or an empty directory, and not one of the inputs; it is written in a sibling directory
 * renamed into place, so a merge that fails leaves no half-merged run.
 */
export function mergeRuns(out: string, dirs: readonly string[]): MergeSummary {
  if (dirs.length === 0) throw new GitGoodError("BAD_OPTION", "give the run directories to merge after OUT");
  const target = realOrResolved(out);
  for (const dir of dirs) {
    if (realOrResolved(dir) === target) throw new GitGoodError("BAD_OPTION", `OUT ${out} is one of the run directories to merge; give a new directory (the inputs are never changed)`);
  }
  if (existsSync(out) && readdirSync(out).length > 0) throw new GitGoodError("BAD_OPTION", `OUT ${out} is not empty; give a new or empty directory`);
  const inputs = dirs.map((dir) => ({ dir, store: RunStore.openExisting(dir), config: RunStore.readConfig(dir) }));
  const first = inputs[0] as (typeof inputs)[number];
  for (const input of inputs.slice(1)) {
    const differs = identityDifferences(first.config.identity, input.config.identity);
    if (differs.length > 0) {
      throw new GitGoodError("RUN_MISMATCH", `${input.dir} holds another run than ${first.dir} (${describeDifferences(first.config.identity, input.config.identity, differs)}); merge joins the shards and partial runs of one run`, {
        differs,
      });
    }
  }
  const chosen = new Map<string, { record: ResultRecord; store: RunStore }>();
  let duplicates = 0;
  let errorsReplaced = 0;
  for (const { store } of inputs) {
    for (const record of store.all()) {
      const current = chosen.get(record.key);
      if (current) duplicates++;
      if (current && !supersedes(record, current.record)) continue;
      if (current?.record.status === "error" && record.status !== "error") errorsReplaced++;
      chosen.set(record.key, { record, store });
    }
  }
  const staging = `${target}.merging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    const config: RunConfig = { ...first.config, created_at: earliest(inputs.map((i) => i.config.created_at)) };
    // The merged run is all its parts: no shard.
    if (config.spec) config.spec = { ...config.spec, [SHARD.key]: SHARD.default };
    // The first input's own session options say which part it ran: the merged run is all its parts.
    if (config.config) config.config = { ...config.config, options: Object.fromEntries(Object.entries(config.config.options).filter(([k]) => k !== "shard")) };
    mkdirSync(path.join(staging, "trajectories"), { recursive: true });
    writeOutputFile(path.join(staging, RUN_FILE), `${JSON.stringify(config, null, 2)}\n`);
    const lines: string[] = [];
    for (const { record, store } of chosen.values()) {
      let trajectory: string | null = null;
      if (record.trajectory !== null) {
        trajectory = trajectoryPath(record.key);
        writeOutputFile(path.join(staging, trajectory), `${JSON.stringify(store.readTrajectory(record.trajectory), null, 1)}\n`);
      }
      lines.push(`${JSON.stringify({ ...record, trajectory })}\n`);
    }
    writeOutputFile(path.join(staging, RESULTS_FILE), lines.join(""));
    if (existsSync(target)) rmdirSync(target);
    renameSync(staging, target);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  return { records: chosen.size, duplicates, errorsReplaced };
}

function earliest(dates: readonly string[]): string {
  return [...dates].sort((a, b) => Date.parse(a) - Date.parse(b))[0] ?? new Date().toISOString();
}
