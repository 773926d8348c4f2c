import path from "node:path";
import type { TestOutcome } from "./types.js";

/**
 * Whether the outcomes read from a run's result files (JUnit XML, a log) agree with what the test
 * runner itself decided, which the code under test does not write: the runner's exit status, set by its
 * main process from the results it collected, and the counts in the summary it prints last. Result
 * files live where the tests can write, so a forged file claiming every test passed meets a runner that
 * exited non-zero, a summary that counts failures, or one that counts fewer passing tests than the file
 * names; each is tampering and voids the run's outcomes (docs/test-verdicts.md).
 */

/** A runner's own counts: failing tests, and at most how many passed. */
export interface RunnerSummary {
  failed: number;
  passed: number;
}

// eslint-disable-next-line no-control-regex -- colour codes are control characters
const ANSI = /\u001b\[[0-9;]*m/g;

function count(line: string, re: RegExp): number {
  const m = re.exec(line);
  return m ? Number(m[1]) : 0;
}

/** Summary lines that give both counts at once, each read into a summary (or null when the line is not one). */
const ONE_LINE: ReadonlyArray<(line: string) => RunnerSummary | null> = [
  // vitest: ` Tests  1 failed | 3 passed (4)`, ` Tests  no tests`
  (l) => (/^\s*Tests\s{2,}(.*\(\d+\)|no tests)\s*$/.test(l) ? { failed: count(l, /(\d+) failed/), passed: count(l, /(\d+) passed/) } : null),
  // jest: `Tests:       1 failed, 3 passed, 4 total`
  (l) => (/^Tests:\s+.*\d+ total\s*$/.test(l) ? { failed: count(l, /(\d+) failed/), passed: count(l, /(\d+) passed/) } : null),
  // pytest: `==== 1 failed, 3 passed in 0.12s ====` (`-q`: without the rules)
  (l) =>
    /^=* ?(\d+ \w+(, \d+ \w+)*|no tests ran) in [\d.]+s( \([\d:]+\))? ?=*$/.test(l)
      ? { failed: count(l, /(\d+) failed/) + count(l, /(\d+) errors?\b/), passed: count(l, /(\d+) passed/) }
      : null,
  // Gradle, on failure only: `4 tests completed, 1 failed` (skipped tests are among the completed)
  (l) => {
    const m = /^(\d+) tests? completed, (\d+) failed/.exec(l);
    return m ? { failed: Number(m[2]), passed: Number(m[1]) - Number(m[2]) } : null;
  },
];

/** Maven surefire's totals (`[ERROR] Tests run: 4, Failures: 1, Errors: 0, Skipped: 0`), one a module; per-class lines carry a time. */
const SUREFIRE_TOTAL = /^\[(?:INFO|WARNING|ERROR)\] Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)\s*$/;

/** The Node test runner's summary, one count a line: `ℹ pass 3` (spec reporter), `# fail 1` (TAP). */
const NODE_COUNT = /^(?:ℹ|#) (pass|fail) (\d+)\s*$/;

/**
 * The runner's own summary in a log: the last summary line of vitest, jest, pytest or Gradle, the Node
 * test runner's last `pass`/`fail` counts, or the sum of Maven surefire's totals (one per module); null
 * when the log has none.
 */
export function runnerSummary(log: string): RunnerSummary | null {
  let last: RunnerSummary | null = null;
  const surefire = { seen: false, failed: 0, passed: 0 };
  const node: { pass: number | null; fail: number | null } = { pass: null, fail: null };
  for (const raw of log.replace(ANSI, "").split("\n")) {
    const line = raw.replace(/\r$/, "");
    const total = SUREFIRE_TOTAL.exec(line);
    if (total) {
      const [run, failures, errors, skipped] = [total[1], total[2], total[3], total[4]].map(Number) as [number, number, number, number];
      surefire.seen = true;
      surefire.failed += failures + errors;
      surefire.passed += run - failures - errors - skipped;
      continue;
    }
    const counted = NODE_COUNT.exec(line);
    if (counted) {
      node[counted[1] === "pass" ? "pass" : "fail"] = Number(counted[2]);
      continue;
    }
    for (const read of ONE_LINE) last = read(line) ?? last;
  }
  if (surefire.seen) return { failed: surefire.failed, passed: surefire.passed };
  if (node.pass !== null && node.fail !== null) return { failed: node.fail, passed: node.pass };
  return last;
}

/**
 * Whether `argv` runs a runner that always prints its summary to the log with gitgood's commands:
 * vitest, jest or the Node test runner (`node --test`).
 */
function printsSummary(argv: readonly string[]): boolean {
  const program = path.basename(argv[0] ?? "");
  return program === "vitest" || program === "jest" || (program === "node" && argv.includes("--test"));
}

/**
 * The disagreements between a run's outcomes and its runner: failing outcomes with exit status 0,
 * outcomes that all pass with any other status (a runner killed by a signal included), a summary
 * counting failures where the outcomes have none or fewer passing tests than the outcomes have (which,
 * merged by name, never have more honestly), and a vitest, jest or `node --test` run that printed no
 * summary. The exit status is compared only when it is the runner's own (`exitCode` given: the test
 * command ran as it is, not through a shell line that may change it); a run without outcomes has
 * nothing to disagree with.
 */
export function runnerDisagreements(outcomes: ReadonlyMap<string, TestOutcome>, log: string, argv: readonly string[], exitCode: number | null | undefined): string[] {
  if (outcomes.size === 0) return [];
  const values = [...outcomes.values()];
  const failing = values.filter((o) => o === "failed" || o === "error").length;
  const passing = values.filter((o) => o === "passed").length;
  const found: string[] = [];
  if (exitCode !== undefined) {
    if (failing > 0 && exitCode === 0) found.push(`the result files have ${failing} failing test(s), but the test runner exited with status 0`);
    if (failing === 0 && exitCode !== 0) found.push(`the result files say no test failed, but the test runner exited with ${exitCode === null ? "a signal" : `status ${exitCode}`}`);
  }
  const summary = runnerSummary(log);
  if (summary === null) {
    if (exitCode !== undefined && printsSummary(argv)) found.push("the test runner printed no summary of its own, but the result files have outcomes");
  } else {
    if (summary.failed > 0 && failing === 0) found.push(`the test runner's summary counts ${summary.failed} failing test(s), but the result files have none`);
    if (passing > summary.passed) found.push(`the result files have ${passing} passing test(s), but the test runner's summary counts ${summary.passed}`);
  }
  return found;
}
