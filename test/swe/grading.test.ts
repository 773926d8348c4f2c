import { describe, expect, it } from "vitest";
import { outcomeOf, parseDjangoLog, parsePytestLog } from "../../src/testenv/index.js";
import type { TestOutcome, TestRun } from "../../src/testenv/types.js";
import { sweRows } from "../../src/families/swe/report.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { insideRepository, tally } from "../../src/swe/evaluate.js";
import { sanityProblem } from "../../src/swe/sanity.js";
import { sweResolution, sweStatus } from "../../src/swe/status.js";

/** SWE grading details against SWE-bench's harness (grading v5), on logs of each framework built here. */

function run(outcomes: Record<string, TestOutcome>, log = "", exitCode: number | null = 0): TestRun {
  return { outcomes: new Map(Object.entries(outcomes)), log, timedOut: false, argv: [], exitCode, channel: "files", tampering: [] };
}

describe("SWE grading (SWE-bench v5)", () => {
  it("a skipped PASS_TO_PASS test is kept; a skipped FAIL_TO_PASS test fails", () => {
    const r = run({ "t.py::a": "skipped", "t.py::b": "passed", "t.py::c": "xfail" });
    expect(tally(r, ["t.py::a", "t.py::b", "t.py::c"], true)).toEqual({ passed: 3, total: 3, failed: [] });
    expect(tally(r, ["t.py::a", "t.py::b"])).toEqual({ passed: 1, total: 2, failed: ["t.py::a"] });
  });

  it("an unapplied or empty patch is never resolved, also with an empty FAIL_TO_PASS list", () => {
    const none = { passed: 0, total: 0, failed: [] };
    const all = { passed: 2, total: 2, failed: [] };
    expect(sweResolution(false, none, all)).toBe("RESOLVED_NO");
    expect(sweStatus(false, none, all)).toBe("no_op");
    expect(sweResolution(true, none, all)).toBe("RESOLVED_FULL");
  });

  it("paths outside the repository are not the repository's", () => {
    expect(["../x", "/etc/passwd", "a/../../b", "C:/x", ""].map(insideRepository)).toEqual([false, false, false, false, false]);
    expect(["a/b.py", "..a/b", "a..b"].map(insideRepository)).toEqual([true, true, true]);
  });
});

describe("Django logs", () => {
  const LOG = [
    "test_plain (app.tests.T) ... ok",
    "test_noisy (app.tests.T) ... Testing against Django installed in '/x' silenced.",
    "some more output",
    "ok",
    "test_noisy_fail (app.tests.T) ... System check identified no issues (0 silenced).",
    "FAIL",
    "test_doc (app.tests.T.test_doc)",
    "Checks that the widget renders. ... ok",
    "test_doc_late (app.tests.T)",
    "Late docstring. ... Internal Server Error: /x/",
    "ok",
    "test_broken (app.tests.T) ... ERROR",
    "",
    "ERROR: test_broken (app.tests.T)",
    "Ran 6 tests in 0.1s",
  ].join("\n");

  it("credits an ok printed after other output, keys docstring tests by their first line, reads FAIL/ERROR", () => {
    const out = parseDjangoLog(LOG);
    expect(Object.fromEntries([...out].sort())).toEqual({
      "Checks that the widget renders.": "passed",
      "Late docstring.": "passed",
      "test_broken (app.tests.T)": "error",
      "test_doc (app.tests.T)": "passed",
      "test_doc_late (app.tests.T)": "passed",
      "test_noisy (app.tests.T)": "passed",
      "test_noisy_fail (app.tests.T)": "failed",
      "test_plain (app.tests.T)": "passed",
    });
    // SWE-bench's ids of docstring tests are matched.
    expect(outcomeOf({ outcomes: out }, "Checks that the widget renders.")).toBe("passed");
  });
});

describe("pytest ids cut at a space", () => {
  it("a parametrized id cut at its first space (as SWE-bench's parser writes it) is prefix-matched, the worst outcome kept", () => {
    const out = parsePytestLog(["PASSED tests/t.py::test_p[a b]", "FAILED tests/t.py::test_p[a c] - assert", "PASSED tests/t.py::test_q[x y]"].join("\n"));
    expect(outcomeOf({ outcomes: out }, "tests/t.py::test_q[x")).toBe("passed");
    expect(outcomeOf({ outcomes: out }, "tests/t.py::test_p[a")).toBe("failed");
    expect(outcomeOf({ outcomes: out }, "tests/t.py::test_r[x")).toBeUndefined();
  });
});

describe("log sanity checks", () => {
  it("a suite that never ran, or a failing exit with no failure parsed, is invalid", () => {
    expect(sanityProblem(run({}, "ImportError: no module named django\n", 1), "django")).toMatch(/never ran/);
    expect(sanityProblem(run({ "t (m.C)": "passed" }, "Ran 1 test in 0.1s\n", 1), "django")).toMatch(/exited with code 1, but no test failed/);
    expect(sanityProblem(run({ "t (m.C)": "failed" }, "Ran 1 test in 0.1s\n", 1), "django")).toBeNull();
    expect(sanityProblem(run({ "a.py::t": "passed" }, "collected 1 item\n", 0), "pytest")).toBeNull();
    expect(sanityProblem({ ...run({}), tampering: ["x"] }, "pytest")).toMatch(/tampered/);
  });
});

describe("the SWE report", () => {
  const rec = (status: string, f2p: [number, number], p2p: [number, number], extra: Record<string, unknown> = {}): ResultRecord =>
    ({
      schema_version: 2,
      key: `k${Math.random()}`,
      sample_id: "s",
      scenario: "SWE",
      repository: "acme/calc",
      difficulty: "easy",
      agent: "a",
      status: "success",
      solved: null,
      verdict: "unjudged",
      scores: { swe: { status, resolution: "RESOLVED_NO", fail_to_pass: { passed: f2p[0], total: f2p[1] }, pass_to_pass: { passed: p2p[0], total: p2p[1] }, apply_strategy: null, ...extra } },
      error: null,
      turns: 0,
      tool_calls: 0,
      tokens: { prompt: 0, completion: 0 },
      cost_usd: null,
      started_at: "2026-01-01T00:00:00Z",
      duration_ms: 1,
      trajectory: null,
    }) as ResultRecord;

  it("an error with empty test lists adds 0 to the pass fractions, and tampered answers are counted", () => {
    const rows = sweRows([rec("error", [0, 0], [0, 0]), rec("no_op", [0, 2], [2, 2], { tampered: ["conftest.py"] })]);
    const total = rows.find((r) => r.repository === "total");
    expect(total?.rates.fail_to_pass).toBe(0);
    expect(total?.rates.pass_to_pass).toBe(50);
    expect(total?.tampered).toBe(1);
  });
});
