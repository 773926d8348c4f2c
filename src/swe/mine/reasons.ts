/**
 * Why a candidate change did not become a SWE instance: the funnel `mine --type swe` prints and
 * writes with `--rejects FILE`. Stable strings, in the order a candidate meets them.
 */
export const SWE_DROP_REASONS = {
  outside_dates: "committed outside --since/--until",
  missing_objects: "git could not read the change (objects missing from the copy)",
  no_tests: "touches no test file of a mined language",
  no_source: "touches no non-test source file of a mined language",
  too_large: "touches more files than --max-files",
  duplicate: "the same change as an older candidate (a one-commit branch and its merge, a cherry-pick)",
  not_text: "the change is not UTF-8 text",
  no_environment: "no environment: nothing says how to run this project's tests (give --env-spec)",
  build_failed: "the environment did not build, or the tests did not run even with the whole change",
  patch_failed: "the test change or the fix does not apply at the parent",
  timeout: "building the environment or a test run ran out of time",
  no_failing_test: "no test fails with the test change alone and passes with the whole change",
  flaky: "the only fail-to-pass tests changed outcome between repeated runs",
} as const;

/** Why a SWE candidate was turned down: a key of `SWE_DROP_REASONS`. */
export type SweDropReason = keyof typeof SWE_DROP_REASONS;

/**
 * Reasons that say more about the machine and the environment than about the change: a verdict with one
 * of them is not kept between minings, so that the next mining (with a better spec, the network, more
 * time) tries the candidate again.
 */
export const INFRASTRUCTURE_REASONS: ReadonlySet<SweDropReason> = new Set(["no_environment", "build_failed", "timeout"]);
const SWE_DROP_REASON_NAMES = Object.keys(SWE_DROP_REASONS) as SweDropReason[];

/** A dropped candidate, as `--rejects FILE` has it (one JSON object a line). */
export interface SweReject {
  commit: string;
  base: string | null;
  reason: SweDropReason;
  detail: string;
}

/** Counts per reason, in the table's order. */
export function countReasons(rejects: readonly SweReject[]): Partial<Record<SweDropReason, number>> {
  const counts: Partial<Record<SweDropReason, number>> = {};
  for (const name of SWE_DROP_REASON_NAMES) {
    const n = rejects.filter((r) => r.reason === name).length;
    if (n > 0) counts[name] = n;
  }
  return counts;
}
