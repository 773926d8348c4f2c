import type { Difficulty } from "../dataset/sample.js";

/**
 * `numerator / denominator` rounded to two decimals exactly as Python's `round(x, 2)` rounds the
 * quotient: ties go to the even hundredth. Integer arithmetic, so no binary-float surprises.
 */
export function roundedRatio(numerator: number, denominator: number): number {
  if (denominator <= 0) throw new RangeError("denominator must be positive");
  const scaled = numerator * 100;
  let hundredths = Math.floor(scaled / denominator);
  const twice = 2 * (scaled - hundredths * denominator);
  if (twice > denominator || (twice === denominator && hundredths % 2 === 1)) hundredths++;
  return hundredths / 100;
}

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
