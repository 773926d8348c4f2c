import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Repo } from "../../src/git/repo.js";
import { treeStore } from "../../src/git/store.js";
import { checkoutBranch } from "../../src/git/worktree.js";
import { Sandbox } from "../../src/sandbox/sandbox.js";
import { Fixture, type FileSet } from "./fixture.js";

/** Writes `files` below `dir` (a null entry writes nothing). */
export function writeFiles(dir: string, files: FileSet): void {
  for (const [rel, content] of Object.entries(files)) {
    if (content === null) continue;
    const p = path.join(dir, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
}

/**
 * A small Python package with a pytest suite whose every outcome kind is known: in
 * tests/test_calc.py test_add passes, test_sub fails, test_div errors in a fixture, test_later is
 * skipped, test_known xfails, test_lucky xpasses, TestCalc::test_mul[2-4] passes and [3-7] fails;
 * tests/unit/test_more.py::test_more passes. The package is importable only from the project's root.
 */
export function pythonProject(): FileSet {
  return {
    "pyproject.toml": '[project]\nname = "calc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
    "calc/__init__.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n",
    "tests/test_calc.py": [
      "import pytest",
      "from calc import add, sub, mul",
      "",
      "",
      "def test_add():",
      "    assert add(1, 2) == 3",
      "",
      "",
      "def test_sub():",
      "    assert sub(3, 1) == 2",
      "",
      "",
      "@pytest.fixture",
      "def broken():",
      '    raise RuntimeError("no fixture")',
      "",
      "",
      "def test_div(broken):",
      "    pass",
      "",
      "",
      '@pytest.mark.skip(reason="later")',
      "def test_later():",
      "    pass",
      "",
      "",
      '@pytest.mark.xfail(reason="known bug")',
      "def test_known():",
      "    assert sub(3, 1) == 2",
      "",
      "",
      '@pytest.mark.xfail(reason="was broken")',
      "def test_lucky():",
      "    assert add(2, 2) == 4",
      "",
      "",
      "class TestCalc:",
      '    @pytest.mark.parametrize("a,b,c", [(1, 2, 2), (3, 2, 7)], ids=["2-4", "3-7"])',
      "    def test_mul(self, a, b, c):",
      "        assert mul(a, b) == c",
      "",
    ].join("\n"),
    "tests/unit/test_more.py": "from calc import mul\n\n\ndef test_more():\n    assert mul(2, 3) == 6\n",
  };
}

/** A Node project whose `node --test` suite has a passing, a failing, a skipped and a nested test. */
export function nodeProject(): FileSet {
  return {
    "package.json": JSON.stringify({ name: "widget", version: "1.0.0", private: true, scripts: { test: "node --test" } }, null, 2) + "\n",
    "package-lock.json": JSON.stringify({ name: "widget", version: "1.0.0", lockfileVersion: 3, requires: true, packages: { "": { name: "widget", version: "1.0.0" } } }, null, 2) + "\n",
    "lib/widget.js": "exports.size = (w) => w.length;\n",
    "test/widget.test.js": [
      'const test = require("node:test");',
      'const assert = require("node:assert");',
      'const { size } = require("../lib/widget.js");',
      'test("counts", () => assert.equal(size("abc"), 3));',
      'test("breaks", () => assert.equal(size("abc"), 4));',
      'test.skip("later", () => {});',
      'test.describe("sizes", () => { test.it("empty", () => assert.equal(size(""), 0)); });',
      "",
    ].join("\n"),
  };
}

/** Django's runner at verbosity 2 (old and Python 3.11+ naming, a docstring line, every status). */
export const DJANGO_LOG = [
  "Testing against Django installed in '/work/django' with up to 1 processes",
  "Creating test database for alias 'default'...",
  "test_ok (admin_views.tests.AdminViewTests) ... ok",
  "test_fail (admin_views.tests.AdminViewTests) ... FAIL",
  "test_err (admin_views.tests.AdminViewTests.test_err) ... ERROR",
  "test_skip (admin_views.tests.AdminViewTests) ... skipped 'needs postgres'",
  "test_xf (admin_views.tests.AdminViewTests) ... expected failure",
  "test_xp (admin_views.tests.AdminViewTests) ... unexpected success",
  "test_doc (utils_tests.test_text.TextTests)",
  "Texts are wrapped at the given width. ... ok",
  "",
  "======================================================================",
  "FAIL: test_fail (admin_views.tests.AdminViewTests)",
  "----------------------------------------------------------------------",
  "Ran 7 tests in 0.120s",
  "FAILED (failures=1, errors=1, skipped=1, expected failures=1, unexpected successes=1)",
].join("\n");

/** SymPy's bin/test --verbose output. */
export const SYMPY_LOG = [
  "============================= test process starts ==============================",
  "executable:         /usr/bin/python3  (3.9.0-final-0) [CPython]",
  "sympy/core/tests/test_basic.py[4] ",
  "test_structure ok",
  "test_equality F",
  "test_matches_basic E",
  "test_known_bug f",
  "sympy/core/tests/test_expr.py[1] ",
  "test_structure ok",
  "",
  "________________________________________________________________________________",
  "____________ sympy/core/tests/test_basic.py:test_equality ______________________",
  "AssertionError",
  "====== tests finished: 2 passed, 1 failed, 1 expected to fail, 1 exceptions =====",
].join("\n");

/** Jest's --verbose tree. */
export const JEST_LOG = [
  " PASS  test/a.test.js",
  "  math",
  "    ✓ adds (2 ms)",
  "    inner",
  "      ✕ subs (1 ms)",
  "  ✓ top (1 ms)",
  "  ○ skipped later",
  "",
  "  ● math › inner › subs",
  "",
  "    expect(received).toBe(expected)",
].join("\n");

/** A Maven Surefire report (Gradle writes the same format). */
export const SUREFIRE_XML = `<?xml version="1.0" encoding="UTF-8"?>
<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" name="com.acme.CalcTest" time="0.05" tests="4" errors="1" skipped="1" failures="1">
  <properties><property name="java.version" value="17"/></properties>
  <testcase name="adds" classname="com.acme.CalcTest" time="0.001"/>
  <testcase name="subtracts" classname="com.acme.CalcTest" time="0.002">
    <failure message="expected:&lt;2&gt; but was:&lt;4&gt;" type="org.opentest4j.AssertionFailedError">trace</failure>
  </testcase>
  <testcase name="divides" classname="com.acme.CalcTest" time="0.001">
    <error message="/ by zero" type="java.lang.ArithmeticException">trace</error>
  </testcase>
  <testcase name="later" classname="com.acme.CalcTest" time="0"><skipped/></testcase>
</testsuite>
`;

/** Gradle's report of a JUnit 5 parameterized test. */
export const GRADLE_XML = `<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="com.acme.ParamTest" tests="2" skipped="0" failures="1" errors="0" timestamp="2024-01-01T00:00:00" hostname="h" time="0.01">
  <properties/>
  <testcase name="square(int)[1]" classname="com.acme.ParamTest" time="0.001"/>
  <testcase name="square(int)[2]" classname="com.acme.ParamTest" time="0.001">
    <failure message="boom" type="java.lang.AssertionError">java.lang.AssertionError: boom</failure>
  </testcase>
  <system-out><![CDATA[]]></system-out>
</testsuite>
`;

/** Vitest's JUnit reporter. */
export const VITEST_XML = `<?xml version="1.0" encoding="UTF-8" ?>
<testsuites name="vitest tests" tests="3" failures="1" errors="0" time="0.2">
    <testsuite name="test/math.test.ts" timestamp="2024-01-01T00:00:00" hostname="h" tests="3" failures="1" errors="0" skipped="1" time="0.01">
        <testcase classname="test/math.test.ts" name="math &gt; adds" time="0.001">
        </testcase>
        <testcase classname="test/math.test.ts" name="math &gt; subtracts" time="0.002">
            <failure message="expected 4 to be 2" type="AssertionError">AssertionError: expected 4 to be 2</failure>
        </testcase>
        <testcase classname="test/math.test.ts" name="later" time="0">
            <skipped/>
        </testcase>
    </testsuite>
</testsuites>
`;

/** A sandbox whose work tree holds `files` (committed in a fixture repository), with its own sandbox root. */
export async function projectSandbox(files: FileSet, label = "env"): Promise<{ sandbox: Sandbox; fixture: Fixture; cleanup: () => void }> {
  const fixture = new Fixture();
  const head = fixture.commit("project", files);
  const tree = fixture.git("rev-parse", `${head}^{tree}`);
  const source = await Repo.open(fixture.dir);
  const sandbox = await Sandbox.create(source, { label, store: await treeStore(source, head, tree, tree, "full") });
  await checkoutBranch(sandbox.repo, "gitgood", head);
  sandbox.publishFresh();
  return {
    sandbox,
    fixture,
    cleanup: () => {
      sandbox.remove();
      fixture.remove();
    },
  };
}

/** A private gitgood cache directory for one test file. */
export function useCacheDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-test-cache-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
