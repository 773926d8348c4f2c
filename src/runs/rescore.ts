import { failureLabels } from "./labels.js";
import { hiddenCommits, historyProbes } from "./probes.js";
import { inCacheScope } from "../model/cache.js";
import { MeteredModelClient } from "../model/meter.js";
import type { ModelClient } from "../model/types.js";
import { repositoryPath, type RepoLocator } from "../dataset/clones.js";
import { GitGoodError } from "../errors.js";
import { Repo } from "../git/repo.js";
import { scenarioNamed } from "../scenarios/registry.js";
import { runScorers } from "../scoring/scorer.js";
import type { ResultRecord } from "./record.js";
import { checkModels } from "./preflight.js";
import type { Prices } from "../model/prices.js";
import { cacheHitsIn, judgeAccount, repeatCacheScope, verdictOf } from "./result.js";
import { DEFAULT_SCORE_TIMEOUT_SECONDS, withScoreLimit } from "./settle.js";
import { RunStore } from "./store.js";
import { MAX_TURNS, TIMEOUT, specValue } from "./spec.js";
import { TrajectorySchema } from "./trajectory.js";

/** The judges and settings a rescore of a finished run uses. */
export interface RescoreOptions {
  judges: readonly ModelClient[];
  /** Prices per judge model name, for the judges' cost (none: the cost of a judge that spends tokens is unknown). */
  modelPrices?: Readonly<Record<string, Prices>>;
  /** Where the samples' repositories are (default: where the run found them). */
  where?: RepoLocator;
  /** Seconds the scorers of one attempt may take (default: the run's `--timeout` from run.json, else DEFAULT_SCORE_TIMEOUT_SECONDS). */
  scoreTimeoutSeconds?: number;
  /** Called after each record, re-scored or not. */
  onRecord?: (record: ResultRecord, rescored: boolean) => void;
}

/** What a rescore did: how many records it scored again, how many it skipped, and the records as they now are. */
export interface RescoreSummary {
  rescored: number;
  /** Records with nothing to score again: agent or system errors, or trajectories without a final state. */
  skipped: number;
  records: ResultRecord[];
}

/**
 * Scores a finished run again from the final states saved in its trajectories, with other judges or
 * newer scorers, without running any agent. The judges are checked first, as a run checks them. Records and trajectories are updated in place (the results
 * file is rewritten whole); a record that cannot be re-scored keeps its old scores.
 */
export async function rescoreRun(dir: string, opts: RescoreOptions): Promise<RescoreSummary> {
  const { config, records } = RunStore.read(dir);
  const store = RunStore.openExisting(dir);
  const where = opts.where ?? config.identity.where;
  if (!where) throw new GitGoodError("BAD_OPTION", `${dir} does not say where its repositories are: give --repo or --repos`);
  // A run without a spec (one a server or an MCP client made) had no attempt time limit of its own.
  const limit = opts.scoreTimeoutSeconds ?? (config.spec ? specValue(config.spec, TIMEOUT) : DEFAULT_SCORE_TIMEOUT_SECONDS);
  // A wrong endpoint, key or judge model name stops here, before any record is touched.
  if (records.some((r) => r.status === "success" && r.trajectory)) await checkModels({ agent: [], judges: opts.judges }, "nothing was re-scored");
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
        // The judges are asked in the attempt's own cache scope, so unchanged judges answer from the cache.
        const judges = opts.judges.map((j) => new MeteredModelClient(j));
        const scored = await inCacheScope(repeatCacheScope(r.repeat), () =>
          withScoreLimit(limit, (signal) => runScorers(def.scorers, t.sample, final.data, { source, judges, signal })),
        );
        const usage = judges.map((j) => ({ ...j.usage }));
        const spent = judgeAccount(usage, (model) => opts.modelPrices?.[model]);
        const { judge_usage: _old, ...rest } = t;
        store.writeTrajectory(r.key, { ...rest, scores: scored.scores, ...(usage.length > 0 ? { judge_usage: usage } : {}) });
        next = {
          ...r,
          scores: scored.scores,
          solved: scored.solved,
          verdict: verdictOf(scored.solved),
          cache_hits: cacheHitsIn(t.events) + spent.cache_hits,
          judge_tokens: spent.tokens,
          judge_cost_usd: spent.cost_usd,
          failure_labels: failureLabels({
            sample: t.sample,
            scenario: t.scenario,
            definition: def,
            solved: scored.solved,
            errorCode: null,
            final: final.data,
            scores: scored.scores,
            events: t.events,
            turns: r.turns,
            maxTurns: config.spec ? specValue(config.spec, MAX_TURNS) : null,
          }),
          history_probes: historyProbes(t.events, hiddenCommits(t.sample, t.scenario)),
        };
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
