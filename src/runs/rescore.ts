import type { ModelClient } from "../model/types.js";
import { repositoryPath, type RepoLocator } from "../dataset/clones.js";
import { GitGoodError } from "../errors.js";
import { Repo } from "../git/repo.js";
import { scenarioNamed } from "../scenarios/registry.js";
import { runScorers } from "../scoring/scorer.js";
import type { ResultRecord } from "./record.js";
import { verdictOf } from "./result.js";
import { RunStore } from "./store.js";
import { TrajectorySchema } from "./trajectory.js";

export interface RescoreOptions {
  judges: readonly ModelClient[];
  /** Where the samples' repositories are (default: where the run found them). */
  where?: RepoLocator;
  /** Called after each record, re-scored or not. */
  onRecord?: (record: ResultRecord, rescored: boolean) => void;
}

export interface RescoreSummary {
  rescored: number;
  /** Records with nothing to score again: agent or system errors, or trajectories without a final state. */
  skipped: number;
  records: ResultRecord[];
}

/**
 * Scores a finished run again from the final states saved in its trajectories, with other judges or
 * newer scorers, without running any agent. Records and trajectories are updated in place (the results
 * file is rewritten whole); a record that cannot be re-scored keeps its old scores.
 */
export async function rescoreRun(dir: string, opts: RescoreOptions): Promise<RescoreSummary> {
  const { config, records } = RunStore.read(dir);
  const store = RunStore.openExisting(dir);
  const where = opts.where ?? config.identity.where;
  if (!where) throw new GitGoodError("BAD_OPTION", `${dir} does not say where its repositories are: give --repo or --repos`);
  const repos = new Map<string, Repo>();
  const out: ResultRecord[] = [];
  let rescored = 0;
  for (const r of records) {
    let next: ResultRecord = r;
    if (r.status === "success" && r.trajectory) {
      const parsed = TrajectorySchema.safeParse(store.readTrajectory(r.trajectory));
      if (parsed.success && parsed.data.final !== undefined) {
        const t = parsed.data;
        const def = scenarioNamed(t.scenario);
        const final = def.finalSchema.safeParse(t.final);
        if (!final.success) throw new GitGoodError("BAD_RUN", `the final state in ${r.trajectory} does not match the ${def.name} schema`);
        const path = repositoryPath(where, t.sample);
        const source = repos.get(path) ?? (await Repo.open(path));
        repos.set(path, source);
        const scored = await runScorers(def.scorers, t.sample, final.data, { source, judges: opts.judges });
        store.writeTrajectory(r.key, { ...t, scores: scored.scores });
        next = { ...r, scores: scored.scores, solved: scored.solved, verdict: verdictOf(scored.solved) };
        rescored++;
      }
    }
    out.push(next);
    opts.onRecord?.(next, next !== r);
  }
  store.replaceAll(out);
  store.setJudges(opts.judges.map((j) => j.model));
  return { rescored, skipped: records.length - rescored, records: out };
}
