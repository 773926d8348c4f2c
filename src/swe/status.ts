/**
 * The verdict vocabularies of SWE-style evaluation: the AgentBeats SWE-bench green agent's statuses and
 * the SWE-bench harness's resolutions, from how many FAIL_TO_PASS and PASS_TO_PASS tests pass.
 */

export const SWE_STATUSES = [
  "resolved",
  "breaking_resolved",
  "partially_resolved",
  "work_in_progress",
  "regression",
  "no_op",
  "error",
] as const;
/** An AgentBeats status of a SWE attempt (see `sweStatus` for how each is decided). */
export type SweStatus = (typeof SWE_STATUSES)[number];

/** What an instance that fails its own validation records instead of a status: never the agent's doing. */
export const ENV_INVALID = "env_invalid";

/** The SWE-bench harness's resolutions: fully, partly, or not resolved (see `sweResolution`). */
export const SWE_RESOLUTIONS = ["RESOLVED_FULL", "RESOLVED_PARTIAL", "RESOLVED_NO"] as const;
/** A SWE-bench resolution of an attempt (see `sweResolution`). */
export type SweResolution = (typeof SWE_RESOLUTIONS)[number];

/** How one list of tests came out: passed of total, and the ids that failed (missing from the results included). */
export interface TestTally {
  passed: number;
  total: number;
  failed: string[];
}

/** The share of a list that passed; an empty list counts as all passed (no division by zero). */
export function passRate(t: TestTally): number {
  return t.total === 0 ? 1 : t.passed / t.total;
}

/**
 * The AgentBeats status (F = FAIL_TO_PASS passing of Ft, P = PASS_TO_PASS passing of Pt): a patch that
 * did not apply is no_op; F=Ft ∧ P=Pt resolved; F=Ft ∧ P<Pt breaking_resolved; 0<F<Ft ∧ P=Pt
 * partially_resolved; F=0 ∧ P=Pt no_op; 0<F<Ft ∧ P<Pt work_in_progress; F=0 ∧ P<Pt regression. An empty
 * list is all passed.
 */
export function sweStatus(applied: boolean, f2p: TestTally, p2p: TestTally): Exclude<SweStatus, "error"> {
  if (!applied) return "no_op";
  const allF = f2p.passed === f2p.total;
  const allP = p2p.passed === p2p.total;
  if (allF) return allP ? "resolved" : "breaking_resolved";
  if (f2p.passed > 0) return allP ? "partially_resolved" : "work_in_progress";
  return allP ? "no_op" : "regression";
}

/**
 * SWE-bench's resolution: FULL when every test passes, PARTIAL when some FAIL_TO_PASS and every
 * PASS_TO_PASS do, else NO. A patch that did not apply, or changed nothing, is never resolved, whatever
 * the lists (an empty FAIL_TO_PASS list included).
 */
export function sweResolution(applied: boolean, f2p: TestTally, p2p: TestTally): SweResolution {
  if (!applied) return "RESOLVED_NO";
  if (p2p.passed !== p2p.total) return "RESOLVED_NO";
  if (f2p.passed === f2p.total) return "RESOLVED_FULL";
  return f2p.passed > 0 ? "RESOLVED_PARTIAL" : "RESOLVED_NO";
}
