import type { LogFormat, TestRun } from "../testenv/types.js";

/** Lines that show a runner started its suite, per log format. */
const RAN: Partial<Record<LogFormat, RegExp>> = {
  pytest: /^(=+ .*test session starts|collected \d+ items?|=+ .* in [\d.]+s)/m,
  django: /^Ran \d+ tests? in [\d.]+s/m,
  sympy: /^=+ test process starts|tests finished: /m,
};

/**
 * SWE-bench's sanity checks on a test log (grading v5): a log that shows no sign the suite ran, or a
 * test command that exited non-zero while no test failed, says nothing about the tests, so none of them
 * counts as passing. Null when the log can be read; else why not. A run killed for its time limit is
 * judged by its caller.
 */
export function sanityProblem(run: TestRun, format: LogFormat): string | null {
  if (run.tampering.length > 0) return `the code under test tampered with the test run: ${run.tampering[0]}`;
  const ran = RAN[format];
  if (run.outcomes.size === 0 && (ran === undefined || !ran.test(run.log))) return "the test suite never ran: no test result and no sign of the runner in its output";
  const failed = [...run.outcomes.values()].some((o) => o === "failed" || o === "error" || o === "xpass");
  if (run.exitCode !== null && run.exitCode !== 0 && !failed) return `the test command exited with code ${run.exitCode}, but no test failed in its output`;
  return null;
}
