import { GitGoodError } from "../errors.js";
import { causeLine, failureCauses } from "../runs/failures.js";
import type { ResultRecord } from "../runs/record.js";

/** What decides the exit status of `gitgood run` and `gitgood bench` once the report is written. */
interface OutcomeFlags {
  /** Exit 0 even when attempts ended in a system error. */
  allowErrors: boolean;
  /** Exit 3 when the solve rate (percent of the attempts solved) is below this. */
  failUnder?: number;
}

/** Distinct causes of system errors the last line of a run names; the report lists every one. */
const MAX_CAUSES = 3;

/** Solved attempts out of all, in percent with two decimals (errors and unjudged attempts are not solved). */
function solveRate(records: readonly ResultRecord[]): number {
  if (records.length === 0) return 0;
  return Math.round((records.filter((r) => r.solved === true).length / records.length) * 10_000) / 100;
}

/**
 * Throws what the run's records say about it, for the exit status: RUN_ERRORS (exit 1) when an attempt
 * ended in a system error, unless --allow-errors; FAIL_UNDER (exit 3) when the solve rate is below
 * --fail-under. System errors come first: a run that could not try every sample has no rate to judge.
 */
export function checkOutcome(records: readonly ResultRecord[], flags: OutcomeFlags): void {
  const errors = records.filter((r) => r.status === "error");
  if (errors.length > 0 && !flags.allowErrors) {
    // Each distinct cause whole, with the attempts it hit: the code alone does not say what to fix.
    const all = failureCauses(records);
    const shown = all.slice(0, MAX_CAUSES).map(causeLine).join("; ");
    const causes = all.length > MAX_CAUSES ? `${shown}; and ${all.length - MAX_CAUSES} more cause(s), in the report` : shown;
    throw new GitGoodError(
      "RUN_ERRORS",
      `${errors.length} of ${records.length} attempt(s) ended in a system error: ${causes}; run again with --retry-errors to retry them, or pass --allow-errors to exit 0`,
      { errors: errors.length, attempts: records.length },
    );
  }
  if (flags.failUnder !== undefined) {
    const rate = solveRate(records);
    if (rate < flags.failUnder) {
      const solved = records.filter((r) => r.solved === true).length;
      throw new GitGoodError(
        "FAIL_UNDER",
        `the solve rate is ${rate.toFixed(2)} % (${solved} of ${records.length} attempt(s) solved), below --fail-under ${flags.failUnder}`,
        { rate, fail_under: flags.failUnder },
      );
    }
  }
}
