import { describe, expect, it } from "vitest";
import { runnerDisagreements, runnerSummary } from "../../src/testenv/runner-agreement.js";
import type { TestOutcome } from "../../src/testenv/types.js";

const VITEST = ["", " ✓ test/a.test.js (1 test)", "", " Test Files  1 failed (1)", "      Tests  1 failed | 3 passed (4)", "   Start at  10:00:00"].join("\n");
const JEST = ["PASS test/a.test.js", "Test Suites: 1 failed, 1 total", "Tests:       1 failed, 3 passed, 4 total", "Snapshots:   0 total"].join("\n");
const NODE = ["✔ doubles (1ms)", "ℹ tests 4", "ℹ suites 0", "ℹ pass 3", "ℹ fail 1", "ℹ cancelled 0"].join("\n");
const PYTEST = ["tests/test_a.py .F", "=========================== 1 failed, 3 passed, 1 warning in 0.12s ===========================", ""].join("\n");
const GRADLE = ["CalcTest > adds() FAILED", "", "4 tests completed, 1 failed", "", "FAILURE: Build failed with an exception."].join("\n");
/** Two modules' surefire totals; per-class lines carry a time and are not totals. */
const MAVEN = [
  "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.05 s <<< FAILURE! - in com.acme.CalcTest",
  "[INFO] Results:",
  "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0",
  "[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 1",
].join("\n");

const outcomes = (...os: TestOutcome[]): Map<string, TestOutcome> => new Map(os.map((o, i) => [`t${i}`, o]));

describe("the runner's own summary", () => {
  it.each([
    ["vitest", VITEST],
    ["jest", JEST],
    ["node --test", NODE],
    ["pytest", PYTEST],
    ["Maven (two modules)", MAVEN],
  ])("is read from %s's log: 1 failed, 3 passed", (_, log) => {
    expect(runnerSummary(log)).toEqual({ failed: 1, passed: 3 });
  });

  it("is read from Gradle's failure line (skipped tests among the completed) and vitest's run without tests", () => {
    expect(runnerSummary(GRADLE)).toEqual({ failed: 1, passed: 3 });
    expect(runnerSummary(" Test Files  1 failed (1)\n      Tests  no tests\n")).toEqual({ failed: 0, passed: 0 });
  });

  it("is the last one printed, colour codes aside; a log without one has none", () => {
    expect(runnerSummary(`      Tests  5 passed (5)\n${"\u001b[2m      Tests \u001b[22m \u001b[1m\u001b[31m1 failed\u001b[39m\u001b[22m | 3 passed (4)"}`)).toEqual({ failed: 1, passed: 3 });
    expect(runnerSummary("all good\n")).toBeNull();
  });
});

describe("agreement between result files and the runner", () => {
  const vitest = ["node_modules/.bin/vitest", "run"];
  it("honest runs agree: failures with a non-zero status, passes with 0 and a matching summary", () => {
    expect(runnerDisagreements(outcomes("passed", "passed", "passed", "failed"), VITEST, vitest, 1)).toEqual([]);
    expect(runnerDisagreements(outcomes("passed", "passed"), "      Tests  2 passed (2)", vitest, 0)).toEqual([]);
    expect(runnerDisagreements(new Map(), "", vitest, 1)).toEqual([]);
  });

  it("a file of passes against a runner that exited non-zero, or by a signal, is tampering", () => {
    expect(runnerDisagreements(outcomes("passed"), "", ["mvn", "test"], 1)).toEqual(["the result files say no test failed, but the test runner exited with status 1"]);
    expect(runnerDisagreements(outcomes("passed"), "", ["mvn", "test"], null)).toEqual(["the result files say no test failed, but the test runner exited with a signal"]);
  });

  it("failures against status 0, a summary counting failures, or fewer passes than the files name, are tampering", () => {
    expect(runnerDisagreements(outcomes("failed"), "", ["mvn", "test"], 0)).toEqual(["the result files have 1 failing test(s), but the test runner exited with status 0"]);
    expect(runnerDisagreements(outcomes("passed", "passed", "passed"), MAVEN, ["sh", "-c", "mvn test || true"], undefined)).toEqual(["the test runner's summary counts 1 failing test(s), but the result files have none"]);
    expect(runnerDisagreements(outcomes("passed", "passed"), "ℹ pass 1\nℹ fail 0\n", ["node", "--test"], 0)).toEqual(["the result files have 2 passing test(s), but the test runner's summary counts 1"]);
  });

  it("vitest, jest and node --test run as they are must print their summary; other runners and shell lines need not", () => {
    expect(runnerDisagreements(outcomes("passed"), "", vitest, 0)).toEqual(["the test runner printed no summary of its own, but the result files have outcomes"]);
    expect(runnerDisagreements(outcomes("passed"), "", ["node", "--test", "--test-reporter=junit"], 0)).toHaveLength(1);
    expect(runnerDisagreements(outcomes("passed"), "", ["mvn", "test"], 0)).toEqual([]);
    expect(runnerDisagreements(outcomes("passed"), "", ["sh", "-c", "vitest run"], undefined)).toEqual([]);
  });
});
