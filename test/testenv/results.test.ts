import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outcomesFromJUnit, parseJUnitXml } from "../../src/testenv/junit.js";
import { parseDjangoLog, parseJestLog, parsePytestLog, parseSympyLog } from "../../src/testenv/logs.js";
import { mergeOutcomes, outcomeOf } from "../../src/testenv/outcomes.js";
import { isPassing, type TestOutcome } from "../../src/testenv/types.js";
import { DJANGO_LOG, GRADLE_XML, JEST_LOG, SUREFIRE_XML, SYMPY_LOG, VITEST_XML, nodeProject, pythonProject, writeFiles } from "../helpers/envs.js";

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-envs-results-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const entries = (m: Map<string, TestOutcome>): Record<string, TestOutcome> => Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)));

/** Runs a real runner in a fresh copy of `files`; returns the directory and the runner's output. */
function runIn(name: string, files: Record<string, string>, argv: string[]): { dir: string; log: string } {
  const dir = path.join(scratch, name);
  writeFiles(dir, files);
  const [cmd, ...args] = argv as [string, ...string[]];
  const r = spawnSync(cmd, args, { cwd: dir, encoding: "utf8", env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
  return { dir, log: `${r.stdout}${r.stderr}` };
}

const PYTEST_EXPECTED: Record<string, TestOutcome> = {
  "tests/test_calc.py::TestCalc::test_mul[2-4]": "passed",
  "tests/test_calc.py::TestCalc::test_mul[3-7]": "failed",
  "tests/test_calc.py::test_add": "passed",
  "tests/test_calc.py::test_div": "error",
  "tests/test_calc.py::test_known": "xfail",
  "tests/test_calc.py::test_later": "skipped",
  "tests/test_calc.py::test_lucky": "passed",
  "tests/test_calc.py::test_sub": "failed",
  "tests/unit/test_more.py::test_more": "passed",
};

describe("JUnit XML from real runners", () => {
  it("pytest --junitxml: node ids file::Class::name from the dotted classname, xfail from skipped type pytest.xfail", () => {
    const { dir } = runIn("pytest", pythonProject() as Record<string, string>, ["python3", "-m", "pytest", "-rA", "-p", "no:cacheprovider", "--junitxml=out.xml", "tests"]);
    const xml = readFileSync(path.join(dir, "out.xml"), "utf8");
    const got = outcomesFromJUnit([xml], "pytest", (rel) => existsSync(path.join(dir, rel)));
    expect(entries(got)).toEqual(PYTEST_EXPECTED);
  });

  it("node --test's junit reporter: suites and names joined by ' > '", () => {
    const { dir } = runIn("node", nodeProject() as Record<string, string>, [
      process.execPath,
      "--test",
      "--test-reporter=junit",
      "--test-reporter-destination=out.xml",
      "test/widget.test.js",
    ]);
    const got = outcomesFromJUnit([readFileSync(path.join(dir, "out.xml"), "utf8")], "names", () => false);
    expect(entries(got)).toEqual({ breaks: "failed", counts: "passed", later: "skipped", "sizes > empty": "passed" });
  });
});

describe("JUnit XML of other flavours", () => {
  it("Maven Surefire: pkg.Class#method, failure, error and skipped", () => {
    expect(entries(outcomesFromJUnit([SUREFIRE_XML], "java", () => false))).toEqual({
      "com.acme.CalcTest#adds": "passed",
      "com.acme.CalcTest#divides": "error",
      "com.acme.CalcTest#later": "skipped",
      "com.acme.CalcTest#subtracts": "failed",
    });
  });

  it("Gradle: parameterized names kept as the report gives them", () => {
    expect(entries(outcomesFromJUnit([GRADLE_XML], "java", () => false))).toEqual({
      "com.acme.ParamTest#square(int)[1]": "passed",
      "com.acme.ParamTest#square(int)[2]": "failed",
    });
  });

  it("Vitest: the file's suite is no part of the name", () => {
    expect(entries(outcomesFromJUnit([VITEST_XML], "names", () => false))).toEqual({
      later: "skipped",
      "math > adds": "passed",
      "math > subtracts": "failed",
    });
  });

  it("a test reported twice keeps the worse outcome; a document that does not parse gives nothing", () => {
    const twice = `<testsuite name="pytest"><testcase classname="t" name="a"/><testcase classname="t" name="a"><error message="teardown"/></testcase></testsuite>`;
    expect(entries(outcomesFromJUnit([twice], "pytest", (p) => p === "t.py"))).toEqual({ "t.py::a": "error" });
    expect(parseJUnitXml("<testsuite><testcase")).toEqual([]);
    expect(parseJUnitXml("not xml at all")).toEqual([]);
  });

  it("a collection error names the module's file", () => {
    const xml = `<testsuites><testsuite name="pytest"><testcase classname="" name="tests.test_broken"><error message="collection failure"/></testcase></testsuite></testsuites>`;
    expect(entries(outcomesFromJUnit([xml], "pytest", (p) => p === "tests/test_broken.py"))).toEqual({ "tests/test_broken.py": "error" });
  });
});

describe("log parsers", () => {
  it("pytest -rA summary of a real run gives the same ids, xpass included", () => {
    const { log } = runIn("pytest-log", pythonProject() as Record<string, string>, ["python3", "-m", "pytest", "-rA", "-p", "no:cacheprovider", "tests"]);
    const got = parsePytestLog(log);
    // -rA names no skipped test, and says XPASS where JUnit says passed.
    const { "tests/test_calc.py::test_later": _skipped, ...rest } = PYTEST_EXPECTED;
    expect(entries(got)).toEqual({ ...rest, "tests/test_calc.py::test_lucky": "xpass" });
  });

  it("pytest -rA: a collection error, parameters with spaces and ' - ', verbose progress lines", () => {
    const log = [
      "tests/a.py::test_v PASSED                                                [ 50%]",
      "=========================== short test summary info ============================",
      "ERROR tests/test_broken.py",
      "PASSED tests/a.py::test_p[a b]",
      "FAILED tests/a.py::test_p[c - d] - AssertionError: assert [1] == [2]",
      "XFAIL tests/a.py::test_x - reason: known",
      "XPASS tests/a.py::test_y unexpectedly passing",
      "SKIPPED [1] tests/a.py:10: later",
      "\x1b[31mFAILED\x1b[0m tests/a.py::test_red - boom",
    ].join("\n");
    expect(entries(parsePytestLog(log))).toEqual({
      "tests/a.py::test_p[a b]": "passed",
      "tests/a.py::test_p[c - d]": "failed",
      "tests/a.py::test_red": "failed",
      "tests/a.py::test_v": "passed",
      "tests/a.py::test_x": "xfail",
      "tests/a.py::test_y": "xpass",
      "tests/test_broken.py": "error",
    });
  });

  it("Django's verbose runner: SWE-bench's names, the Python 3.11 form folded, a docstring line", () => {
    expect(entries(parseDjangoLog(DJANGO_LOG))).toEqual({
      "Texts are wrapped at the given width.": "passed",
      "test_doc (utils_tests.test_text.TextTests)": "passed",
      "test_err (admin_views.tests.AdminViewTests)": "error",
      "test_fail (admin_views.tests.AdminViewTests)": "failed",
      "test_ok (admin_views.tests.AdminViewTests)": "passed",
      "test_skip (admin_views.tests.AdminViewTests)": "skipped",
      "test_xf (admin_views.tests.AdminViewTests)": "xfail",
      "test_xp (admin_views.tests.AdminViewTests)": "xpass",
    });
  });

  it("SymPy's bin/test: bare names, the worse outcome when two files share a name", () => {
    expect(entries(parseSympyLog(SYMPY_LOG))).toEqual({
      test_equality: "failed",
      test_known_bug: "xfail",
      test_matches_basic: "error",
      test_structure: "passed",
    });
  });

  it("Jest's verbose tree: describe blocks and names joined by ' > '", () => {
    expect(entries(parseJestLog(JEST_LOG))).toEqual({ later: "skipped", "math > adds": "passed", "math > inner > subs": "failed", top: "passed" });
  });
});

describe("outcomeOf and isPassing", () => {
  const run = {
    outcomes: new Map<string, TestOutcome>([
      ["tests/a.py::test_a", "passed"],
      ["sympy/core/tests/test_basic.py::test_equality", "failed"],
      ["sympy/core/tests/test_expr.py::test_equality", "passed"],
      ["test_ok (admin.tests.T)", "passed"],
      ["com.acme.CalcTest#adds", "passed"],
      ["com.acme.CalcTest#subtracts", "failed"],
    ]),
  };

  it("finds ids in the dataset's forms; a test not in the run is undefined", () => {
    expect(outcomeOf(run, "tests/a.py::test_a")).toBe("passed");
    expect(outcomeOf(run, "./tests/a.py::test_a")).toBe("passed");
    expect(outcomeOf(run, "test_ok (admin.tests.T.test_ok)")).toBe("passed");
    expect(outcomeOf(run, "test_ok (admin.tests.Other)")).toBeUndefined();
    expect(outcomeOf(run, "test_equality")).toBe("failed");
    expect(outcomeOf(run, "test_a")).toBe("passed");
    expect(outcomeOf(run, "com.acme.CalcTest.adds")).toBe("passed");
    expect(outcomeOf(run, "com.acme.CalcTest")).toBe("failed");
    expect(outcomeOf(run, "tests/a.py::test_missing")).toBeUndefined();
    expect(outcomeOf(run, "test_missing")).toBeUndefined();
  });

  it("passed and xfail pass; everything else, missing included, does not", () => {
    expect(["passed", "xfail"].every((o) => isPassing(o as TestOutcome))).toBe(true);
    expect(["failed", "error", "skipped", "xpass", undefined].some((o) => isPassing(o as TestOutcome | undefined))).toBe(false);
  });

  it("a log completes JUnit results: missing tests added, an unexpected pass marked xpass", () => {
    const junit = new Map<string, TestOutcome>([["a::t1", "passed"], ["a::t2", "passed"]]);
    const log = new Map<string, TestOutcome>([["a::t2", "xpass"], ["a::t3", "failed"], ["a::t1", "failed"]]);
    expect(entries(mergeOutcomes(junit, log))).toEqual({ "a::t1": "passed", "a::t2": "xpass", "a::t3": "failed" });
  });
});
