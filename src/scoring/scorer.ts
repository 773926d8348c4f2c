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
  /**
   * The shaped partial rewards this scorer's value gives (each in [0, 1]), named and described: what a
   * trainer may use besides the terminal verdict. `shape` computes them from a recorded value.
   */
  readonly shapedRewards?: readonly ShapedReward[];
  /** The shaped rewards of one recorded value (a record's `scores[name]`, read as untrusted JSON); a reward the value cannot give is left out. */
  shape?(value: Readonly<Record<string, unknown>>): Record<string, number>;
  /** For a scorer that asks the judge models: the most requests it sends each judge per attempt (for plans). */
  readonly maxCallsPerJudge?: number;
  /** Scores one final state against its sample: null when the scorer does not apply; throws when it cannot score. */
  score(sample: S, final: F, ctx: ScoreContext): Promise<Score | null>;
}

/** A shaped partial reward: its name (unique across the scenario's scorers) and what it measures. */
export interface ShapedReward {
  readonly name: string;
  readonly description: string;
}

/** A share of a whole (`part / whole`, within [0, 1]), or undefined when either is not a count or the whole is 0. */
export function share(part: unknown, whole: unknown): number | undefined {
  if (typeof part !== "number" || typeof whole !== "number" || !Number.isFinite(part) || !Number.isFinite(whole) || whole <= 0) return undefined;
  return Math.min(1, Math.max(0, part / whole));
}

/** `{ [name]: r }`, or nothing when `r` is undefined. */
export function rewardNamed(name: string, r: number | undefined): Record<string, number> {
  return r === undefined ? {} : { [name]: r };
}

/** The shaped rewards a record's scores give under a scenario's scorers (an errored scorer's value gives none). */
export function shapedRewards(scorers: readonly Pick<Scorer<unknown, unknown>, "name" | "shape">[], scores: Readonly<Record<string, unknown>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of scorers) {
    const value = scores[s.name];
    if (!s.shape || typeof value !== "object" || value === null || Array.isArray(value) || "error" in value) continue;
    Object.assign(out, s.shape(value as Record<string, unknown>));
  }
  return out;
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
