import { GitGoodError } from "../errors.js";
import { buildLeaderboard } from "./build.js";
import type { Cutoffs } from "./models.js";
import { readRankedRun, sampleSetDifferences } from "./runs.js";
import type { Leaderboard } from "./schema.js";

/** What `gitgood leaderboard` asks for besides the run directories. */
export interface LeaderboardOptions {
  title: string;
  cutoffs: Cutoffs;
  /** Rank runs that are not over the same samples and settings anyway, saying so in the site. */
  allowMixed: boolean;
}

/**
 * The leaderboard of some run directories (each with its label). Runs not over the same samples, settings
 * and attempts are refused with one line per difference, unless `allowMixed`, which ranks them and keeps
 * the lines in the leaderboard.
 */
export function leaderboardOf(dirs: readonly { dir: string; label: string }[], opts: LeaderboardOptions): Leaderboard {
  const runs = dirs.map(({ dir, label }) => readRankedRun(dir, label));
  const differences = sampleSetDifferences(runs);
  if (differences.length > 0 && !opts.allowMixed) {
    throw new GitGoodError(
      "MIXED_RUNS",
      `the runs are not over the same samples and settings, so they are not ranked (--allow-mixed ranks them anyway, marked as mixed):\n${differences.map((d) => `  ${d}`).join("\n")}`,
      { differences },
    );
  }
  return buildLeaderboard(runs, { title: opts.title, cutoffs: opts.cutoffs, mixed: differences.length > 0 ? differences : null });
}
