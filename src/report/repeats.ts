import type { Difficulty } from "../dataset/sample.js";
import type { ResultRecord } from "../runs/record.js";

/**
 * The unbiased pass@k estimator for one sample attempted `n` times, `c` of them solved: the chance
 * that at least one of `k` attempts drawn from the `n` without replacement is solved,
 * 1 − C(n−c, k) / C(n, k), computed as a product so that no binomial coefficient overflows.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(k) || k < 1 || k > n || c < 0 || c > n) throw new RangeError(`pass@${k} needs 1 ≤ k ≤ n (n=${n}, c=${c})`);
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = 0; i < k; i++) allFail *= (n - c - i) / (n - i);
  return 1 - allFail;
}

/** An agent's pass@k figures over the repeats of one scenario and difficulty (or all). */
export interface RepeatRow {
  agent: string;
  /** A scenario's registry name, or "total". */
  scenario: string;
  difficulty: Difficulty | "all";
  /** Distinct samples (× scenario) in the group. */
  samples: number;
  /** Records in the group: every repeat of every sample. */
  attempts: number;
  /** The fewest attempts of any sample in the group: pass@k is given for k = 1 … this. */
  k: number;
  /** Attempts finished without error but not judged; with any, no rate is given. */
  unjudged: number;
  /** Mean over the samples of each one's share of solved attempts, in percent. */
  mean_solve_rate: number | null;
  /**
   * Standard error of that mean over the samples (their shares' sample standard deviation ÷ √samples),
   * in percentage points; null below two samples.
   */
  standard_error: number | null;
  /** pass@k in percent for k = 1 … `k`, each averaged over the samples. */
  pass_at_k: Record<string, number> | null;
}

const percent = (fraction: number): number => Math.round(fraction * 10_000) / 100;

/** The repeat statistics of one group of records (one agent; any scenarios and difficulties). */
export function repeatRow(agent: string, records: readonly ResultRecord[], scenario: string, difficulty: RepeatRow["difficulty"]): RepeatRow {
  const perSample = new Map<string, { n: number; c: number }>();
  for (const r of records) {
    const key = `${r.scenario}\u0000${r.sample_id}`;
    const s = perSample.get(key) ?? { n: 0, c: 0 };
    s.n += 1;
    if (r.solved === true) s.c += 1;
    perSample.set(key, s);
  }
  const groups = [...perSample.values()];
  const unjudged = records.filter((r) => r.verdict === "unjudged").length;
  const k = groups.length === 0 ? 0 : Math.min(...groups.map((g) => g.n));
  const row: RepeatRow = {
    agent,
    scenario,
    difficulty,
    samples: groups.length,
    attempts: records.length,
    k,
    unjudged,
    mean_solve_rate: null,
    standard_error: null,
    pass_at_k: null,
  };
  if (groups.length === 0 || unjudged > 0) return row;
  const shares = groups.map((g) => g.c / g.n);
  const mean = shares.reduce((a, v) => a + v, 0) / shares.length;
  row.mean_solve_rate = percent(mean);
  if (shares.length > 1) {
    const variance = shares.reduce((a, v) => a + (v - mean) ** 2, 0) / (shares.length - 1);
    row.standard_error = percent(Math.sqrt(variance / shares.length));
  }
  const pass: Record<string, number> = {};
  for (let kk = 1; kk <= k; kk++) pass[String(kk)] = percent(groups.reduce((a, g) => a + passAtK(g.n, g.c, kk), 0) / groups.length);
  row.pass_at_k = pass;
  return row;
}
