import type { ResultRecord } from "../runs/record.js";
import { attemptSpend } from "../runs/budget.js";

/** What a solved task cost: total spend over tasks solved, with a 95 % interval, over the attempts priced and measured. */
export interface CostPerSolved {
  usd: number;
  low: number;
  high: number;
  /** Attempts counted: those whose spend is known (priced, or no model asked) and whose judges' cost is known. */
  attempts: number;
  solved: number;
}

const Z95 = 1.959964;
const usd = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * Cost per solved task as a ratio estimator over attempts: R = Σ cost / Σ solved, with the delta-method
 * (linearised) standard error √(Σ (cᵢ − R·sᵢ)² / (n (n − 1))) / s̄ and a normal 95 % interval, its low end
 * kept at 0 or above. Null when no attempt with a known cost solved its task, or fewer than two are counted.
 */
export function costPerSolved(records: readonly ResultRecord[]): CostPerSolved | null {
  const pairs = records.flatMap((r) => {
    // An agent that asked no model spent nothing, priced or not; a cost that cannot be measured is left out.
    const c = attemptSpend(r);
    return c === null ? [] : [{ c, s: r.solved === true ? 1 : 0 }];
  });
  const n = pairs.length;
  const solved = pairs.reduce((a, p) => a + p.s, 0);
  if (n < 2 || solved === 0) return null;
  const ratio = pairs.reduce((a, p) => a + p.c, 0) / solved;
  const meanSolved = solved / n;
  const residuals = pairs.reduce((a, p) => a + (p.c - ratio * p.s) ** 2, 0);
  const se = Math.sqrt(residuals / (n * (n - 1))) / meanSolved;
  return { usd: usd(ratio), low: usd(Math.max(0, ratio - Z95 * se)), high: usd(ratio + Z95 * se), attempts: n, solved };
}
