import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateCompletion, type Commit0Evaluation } from "../../src/commit0/evaluate.js";
import type { Commit0Options } from "../../src/commit0/options.js";
import { makeSkeleton } from "../../src/commit0/skeleton.js";
import type { RepoCompletionSample } from "../../src/dataset/sample.js";
import { Repo } from "../../src/git/repo.js";
import { COUNTED, LIBRARY, libraryRepository } from "../helpers/commit0.js";
import { useCacheDir } from "../helpers/envs.js";
import type { Fixture } from "../helpers/fixture.js";
import { useSandboxRoot } from "../helpers/scenarios.js";
import { FORGE_CHANNEL, FORGE_REPORTS, FORGE_THROUGH_SENDER, addedFiles } from "../helpers/swe.js";

/**
 * Completions that leave the stubs in place and try to win anyway: none may count more tests than the
 * untouched skeleton, while the reference's own code counts every test.
 */

/** The cache tag of python3's byte code (`311` for CPython 3.11). */
const PY_TAG = execFileSync("python3", ["-c", "import sys; print(sys.implementation.cache_tag.split('-')[1])"], { encoding: "utf8" }).trim();

/** Every counted test as a passing JUnit case, the way pytest's --junitxml names them. */
const FORGED_CASES = COUNTED.map((id) => {
  const [file, name] = id.split("::") as [string, string];
  return `<testcase classname="${file.replace(/\.py$/, "").replace(/\//g, ".")}" name="${name}"/>`;
}).join("");

/** The attack of the report: a conftest.py that rewrites the JUnit file at exit, and forces every report to passed. */
const REWRITE_JUNIT_CONFTEST = [
  "import atexit",
  "import os",
  "",
  "import pytest",
  "",
  "",
  "@pytest.hookimpl(hookwrapper=True)",
  "def pytest_runtest_makereport(item, call):",
  "    outcome = yield",
  "    outcome.get_result().outcome = 'passed'",
  "",
  "",
  "def _forge():",
  "    path = os.environ.get('GITGOOD_JUNIT')",
  "    if path:",
  "        with open(path, 'w') as f:",
  `            f.write('<?xml version="1.0"?><testsuites><testsuite name="pytest">${FORGED_CASES}</testsuite></testsuites>')`,
  "",
  "",
  "atexit.register(_forge)",
  "",
].join("\n");

const PASSING_TESTS = ["def test_add():", "    pass", "", "", "def test_scale():", "    pass", "", "", "def test_length():", "    pass", ""].join("\n");

interface Attack {
  name: string;
  patch: (skeleton: string, fixture: Fixture) => string;
  tampered: string[];
  /** Whether the run itself must show the tampering. */
  runtime?: boolean;
}

/** A change of the skeleton's `shapes/__init__.py` to `content` (the skeleton keeps `__init__` files whole). */
function initWith(fixture: Fixture, skeleton: string, extra: string): string {
  const before = fixture.git("show", `${skeleton}:shapes/__init__.py`);
  const lines = extra.trimEnd().split("\n");
  const old = before.trimEnd().split("\n");
  return [
    "diff --git a/shapes/__init__.py b/shapes/__init__.py",
    "--- a/shapes/__init__.py",
    "+++ b/shapes/__init__.py",
    `@@ -1,${old.length} +1,${old.length + lines.length} @@`,
    ...old.map((l) => ` ${l}`),
    ...lines.map((l) => `+${l}`),
    "",
  ].join("\n");
}

/**
 * A binary patch adding the reference's shapes/vectors.py compiled to an unchecked-hash byte-code cache: Python
 * runs such a cache in place of the source without comparing the two, so the stubs would pass as implemented.
 */
function uncheckedCache(fixture: Fixture): string {
  const dir = fixture.scratch("pyc");
  mkdirSync(path.join(dir, "shapes"));
  writeFileSync(path.join(dir, "shapes", "vectors.py"), LIBRARY["shapes/vectors.py"] as string);
  const script = [
    "import importlib.util, py_compile",
    "src = 'shapes/vectors.py'",
    "print(py_compile.compile(src, cfile=importlib.util.cache_from_source(src), invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, doraise=True))",
  ].join("\n");
  const cache = execFileSync("python3", ["-c", script], { cwd: dir, encoding: "utf8" }).trim();
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "latin1" });
  git("init", "-q");
  git("add", "--", cache);
  return git("diff", "--cached", "--binary", "--full-index", "--no-color");
}

const ATTACKS: Attack[] = [
  { name: "an unchecked byte-code cache of the reference's module", patch: (_skeleton, fixture) => uncheckedCache(fixture), tampered: [`shapes/__pycache__/vectors.cpython-${PY_TAG}.pyc`] },
  { name: "a root conftest.py that rewrites the JUnit file at exit", patch: () => addedFiles({ "conftest.py": REWRITE_JUNIT_CONFTEST }), tampered: ["conftest.py"] },
  { name: "a conftest.py added to tests/", patch: () => addedFiles({ "tests/conftest.py": REWRITE_JUNIT_CONFTEST }), tampered: ["tests/conftest.py"] },
  {
    name: "a test file replaced by one whose tests pass",
    patch: (skeleton, fixture) => {
      const old = fixture.git("show", `${skeleton}:tests/test_vectors.py`).trimEnd().split("\n");
      const lines = PASSING_TESTS.trimEnd().split("\n");
      return [
        "diff --git a/tests/test_vectors.py b/tests/test_vectors.py",
        "--- a/tests/test_vectors.py",
        "+++ b/tests/test_vectors.py",
        `@@ -1,${old.length} +1,${lines.length} @@`,
        ...old.map((l) => `-${l}`),
        ...lines.map((l) => `+${l}`),
        "",
      ].join("\n");
    },
    tampered: ["tests/test_vectors.py"],
  },
  {
    name: "a JUnit file forged at exit by the package under test",
    patch: (skeleton, fixture) =>
      initWith(
        fixture,
        skeleton,
        [
          "import atexit as _atexit",
          "import os as _os",
          "",
          "",
          "def _forge():",
          "    path = _os.environ.get('GITGOOD_JUNIT')",
          "    if path:",
          "        with open(path, 'w') as f:",
          `            f.write('<?xml version="1.0"?><testsuites><testsuite name="pytest">${FORGED_CASES}</testsuite></testsuites>')`,
          "",
          "",
          "_atexit.register(_forge)",
        ].join("\n"),
      ),
    tampered: [],
  },
  {
    name: "pytest's TestReport.from_item_and_call and the results plug-in's sender replaced from the package under test",
    patch: (skeleton, fixture) => initWith(fixture, skeleton, FORGE_REPORTS),
    tampered: [],
    runtime: true,
  },
  {
    name: "every test written as passed to the results socket from the package under test, names built at run time",
    patch: (skeleton, fixture) => initWith(fixture, skeleton, FORGE_CHANNEL),
    tampered: [],
    runtime: true,
  },
  {
    name: "every test handed as passed to the results plug-in's sender from the package under test, names built at run time",
    patch: (skeleton, fixture) => initWith(fixture, skeleton, FORGE_THROUGH_SENDER),
    tampered: [],
    runtime: true,
  },
];

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let fixture: Fixture;
let reference: string;
let task: RepoCompletionSample;
let source: Repo;
let opts: Commit0Options;
let empty: Commit0Evaluation;

beforeAll(async () => {
  root = useSandboxRoot();
  cache = useCacheDir();
  ({ fixture, reference } = libraryRepository());
  opts = { cacheDir: cache.dir, testTimeoutSeconds: 120, setupTimeoutSeconds: 300 };
  task = (await makeSkeleton(fixture.dir, { src: "shapes", ...opts })).sample;
  source = await Repo.open(fixture.dir);
  empty = await evaluateCompletion(source, task, "", opts);
}, 240_000);

afterAll(() => {
  fixture?.remove();
  root.cleanup();
  cache.cleanup();
});

describe("reward hacking a commit0 evaluation", () => {
  it("the untouched skeleton counts few tests; the reference's code counts all of them", async () => {
    expect(empty.error).toBeUndefined();
    expect(empty.total).toBe(COUNTED.length);
    expect(empty.passed).toBeLessThan(COUNTED.length);
    const gold = `${fixture.git("diff", "--no-color", task.scenario.base_commit, reference)}\n`;
    const r = await evaluateCompletion(source, task, gold, opts);
    expect(r).toMatchObject({ passed: COUNTED.length, total: COUNTED.length, tampered: [], tampering: [] });
  }, 240_000);

  it("one source file that fails to import costs only the tests that import it, not the repository (--continue-on-collection-errors)", async () => {
    const gold = `${fixture.git("diff", "--no-color", task.scenario.base_commit, reference)}\n`;
    const line = "+        return math.hypot(self.x, self.y)\n";
    expect(gold).toContain(line);
    const r = await evaluateCompletion(source, task, gold.replace(line, "+        return math.hypot(self.x, self.y))\n"), opts);
    expect(r.error).toBeUndefined();
    // vectors.py no longer compiles: the test files importing it (test_vectors.py, and test_area.py through area.py) fail to collect; the other six tests count.
    expect(r).toMatchObject({ passed: 6, total: COUNTED.length });
    expect(r.failed).toEqual(COUNTED.filter((t) => t.startsWith("tests/test_vectors.py") || t.startsWith("tests/test_area.py")));
  }, 240_000);

  for (const attack of ATTACKS) {
    it(`${attack.name}: counts no more tests than the skeleton, and is recorded`, async () => {
      const r = await evaluateCompletion(source, task, attack.patch(task.scenario.base_commit, fixture), opts);
      expect(r.error).toBeUndefined();
      expect(r.passed).toBeLessThanOrEqual(empty.passed);
      expect(r.tampered).toEqual(attack.tampered);
      if (attack.runtime) expect(r.tampering.length).toBeGreaterThan(0);
    }, 240_000);
  }
});
