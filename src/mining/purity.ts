import type { Difficulty } from "../dataset/sample.js";

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * `numerator / denominator` rounded to two decimals exactly as Python's `round(x, 2)` rounds the
 * float quotient: the exact binary value is rounded, and only a true tie (a quotient of eighths such
 * as 0.125) goes to the even hundredth. `toFixed` rounds the exact binary value too, but breaks ties
 * upwards, so eighths are handled in integers.
 */
export function roundedRatio(numerator: number, denominator: number): number {
  if (denominator <= 0) throw new RangeError("denominator must be positive");
  if (denominator / gcd(numerator, denominator) === 8) {
    const scaled = numerator * 100;
    let hundredths = Math.floor(scaled / denominator);
    if (2 * (scaled - hundredths * denominator) >= denominator && hundredths % 2 === 1) hundredths++;
    return hundredths / 100;
  }
  return Number((numerator / denominator).toFixed(2));
}

/** The purity bounds that label a chain's difficulty. */
export interface DifficultyThresholds {
  /** Purity at or above which a chain is `medium` (below 1.0); lower is `hard`. */
  medium: number;
}

export const DEFAULT_THRESHOLDS: DifficultyThresholds = { medium: 0.75 };

/** Difficulty of a chain from its rounded purity, as the published code assigns it. */
export function chainDifficulty(purity: number, t: DifficultyThresholds = DEFAULT_THRESHOLDS): Difficulty {
  if (purity >= 1) return "easy";
  return purity >= t.medium ? "medium" : "hard";
}
