import type { ModelClient } from "../model/types.js";
import { isGitGoodError, toGitGoodError } from "../errors.js";
import type { Repo } from "../git/repo.js";

/** What a scorer may use besides the sample and the final state. */
export interface ScoreContext {
  /** The repository the sample comes from, read-only: where the ground truth is read. */
  source: Repo;
  /** Judge models (for scorers that ask models); empty when none were given. */
  judges: readonly ModelClient[];
  /**
   * The scoring's time limit: model requests (the judges') carry it. When it aborts with a GitGoodError
   * as its reason (a TIMEOUT, say), a scorer that fails from then on has that error recorded.
   */
  signal?: AbortSignal;
  /** Scenario-specific settings, as the scenario's set-up got them (SWE: `swe`, its evaluation options). */
  settings?: Readonly<Record<string, unknown>>;
}

/** One scorer's result: what it records, and whether it decides the verdict. */
export interface Score {
  /** true or false when this scorer decides whether the task is solved; null when it only records facts. */
  solved: boolean | null;
  /** Recorded under the scorer's name in the result's `scores`. */
  value: Record<string, unknown>;
}

/**
 * Turns a sample and the final state an agent left into a score. A scorer that does not apply (a judge
 * with no judge models) returns null and is not recorded; one that throws has its error recorded in
 * its place and leaves the verdict unjudged: a scorer's failure is never the agent's.
 */
export interface Scorer<S, F> {
  readonly name: string;
  /** For a scorer that asks the judge models: the most requests it sends each judge per attempt (for plans). */
  readonly maxCallsPerJudge?: number;
  /** Scores one final state against its sample: null when the scorer does not apply; throws when it cannot score. */
  score(sample: S, final: F, ctx: ScoreContext): Promise<Score | null>;
}

/** What all of a scenario's scorers made of one attempt, as `runScorers` combines them. */
export interface Scored {
  /** Each scorer's value (or `{ error }`) under its name. */
  scores: Record<string, unknown>;
  /** The verdict: null when no scorer decides, or when one that would have failed. */
  solved: boolean | null;
}

/** Runs every scorer and combines their verdicts: any failure → null; any false → false; all true → true. */
export async function runScorers<S, F>(
  scorers: readonly Scorer<S, F>[],
  sample: S,
  final: F,
  ctx: ScoreContext,
): Promise<Scored> {
  const scores: Record<string, unknown> = {};
  const verdicts: boolean[] = [];
  let failed = false;
  for (const scorer of scorers) {
    try {
      const s = await scorer.score(sample, final, ctx);
      if (s === null) continue;
      scores[scorer.name] = s.value;
      if (s.solved !== null) verdicts.push(s.solved);
    } catch (err) {
      const reason: unknown = ctx.signal?.aborted ? ctx.signal.reason : undefined;
      const e = isGitGoodError(reason) ? reason : toGitGoodError(err);
      scores[scorer.name] = { error: { code: e.code, message: e.message } };
      failed = true;
    }
  }
  const solved = failed || verdicts.length === 0 ? null : verdicts.every(Boolean);
  return { scores, solved };
}
