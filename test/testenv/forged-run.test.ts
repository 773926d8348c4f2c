import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveEnvSpec } from "../../src/testenv/defaults.js";
import { prepareEnvironment } from "../../src/testenv/prepare.js";
import { runTests } from "../../src/testenv/run-tests.js";
import type { Environment, TestRun } from "../../src/testenv/types.js";
import { projectSandbox, useCacheDir } from "../helpers/envs.js";
import { useSandboxRoot } from "../helpers/scenarios.js";
import { FORGE_CHANNEL, FORGE_REPORTS, FORGE_THROUGH_SENDER } from "../helpers/swe.js";

/**
 * The results plug-in's own line of defence, with no static check in front of it: runTests on a project whose
 * package attacks the run from inside the test process, at import. `calc.sub` is wrong, so
 * tests/test_sub.py::test_sub fails unless the run is forged; tests/test_add.py::test_add passes.
 */

const CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n";

/** A package that does what projects do with the interpreter, none of it aimed at the run. */
const ORDINARY = [
  "import collections",
  "import ctypes",
  "import dataclasses",
  "import sys",
  "",
  "Pair = collections.namedtuple('Pair', 'a b', defaults=(0,))",
  "",
  "",
  "@dataclasses.dataclass",
  "class Box:",
  "    size: int = 1",
  "",
  "",
  "LOADED = sys.modules[__name__] is not None and 'json' in sys.modules or True",
  "WORD = ctypes.sizeof(ctypes.c_void_p)",
  "",
].join("\n");

/** pytest's Function.runtest given a body that swallows assertion failures, its identity kept. */
const SWAP_RUNTEST_CODE = [
  "import _pytest.python as _p",
  "",
  "",
  "def _quiet(self):",
  "    try:",
  "        self.ihook.pytest_pyfunc_call(pyfuncitem=self)",
  "    except AssertionError:",
  "        pass",
  "",
  "",
  "_p.Function.runtest.__code__ = _quiet.__code__",
  "",
].join("\n");

/** The plug-in's senders found through gc and pointed at no descriptor, then the reports forged. */
const SILENCE_THROUGH_GC = [
  "import gc as _gc",
  "",
  "for _o in _gc.get_objects():",
  "    if type(_o).__name__ == 'function' and _o.__name__ == 'send' and _o.__module__ == '_gitgood_results':",
  "        for _c in _o.__closure__ or ():",
  "            if type(_c.cell_contents) is int:",
  "                _c.cell_contents = -1",
  FORGE_REPORTS,
].join("\n");

/** Passes written straight to the plug-in's descriptor, and the process gone before any test runs. */
const WRITE_AND_LEAVE = [
  "import os as _os",
  "import sys as _sys",
  "",
  "_fd = _sys.modules['_gitgood_results']._FD",
  "for _t in ('tests/test_sub.py::test_sub', 'tests/test_add.py::test_add'):",
  "    for _w in ('setup', 'call', 'teardown'):",
  "        _os.write(_fd, ('phase\\t%s\\t%s\\tpassed\\t\\n' % (_t, _w)).encode())",
  "_os._exit(0)",
  "",
].join("\n");

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let project: Awaited<ReturnType<typeof projectSandbox>>;
let env: Environment;

/** The run's tests with the package's `__init__.py` set to `prefix` followed by calc's functions. */
async function runWith(prefix: string): Promise<TestRun> {
  writeFileSync(path.join(project.sandbox.workDir, "calc", "__init__.py"), `${prefix}\n${CALC}`);
  return runTests(project.sandbox, env, ["tests/test_add.py", "tests/test_sub.py"], { timeoutSeconds: 120 });
}

beforeAll(async () => {
  root = useSandboxRoot();
  cache = useCacheDir();
  project = await projectSandbox({
    "pyproject.toml": '[project]\nname = "calc"\nversion = "0.1.0"\n',
    "calc/__init__.py": CALC,
    "tests/test_add.py": "import gc\nfrom unittest import mock\n\nimport calc\n\n\ndef test_add():\n    with mock.patch.object(calc.Box, 'size', 2):\n        assert calc.Box.size == 2\n    assert gc.get_referrers(calc) is not None\n    assert calc.add(2, 3) == 5\n",
    "tests/test_sub.py": "from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n",
  });
  const spec = resolveEnvSpec({ repo: "acme/calc", version: "1" }, project.sandbox.workDir);
  env = await prepareEnvironment({ sandbox: project.sandbox, target: { repo: "acme/calc", version: "1" }, spec, cacheDir: cache.dir, timeoutSeconds: 300 });
}, 300_000);

afterAll(() => {
  project?.cleanup();
  root.cleanup();
  cache.cleanup();
});

describe("a pytest run whose package attacks it from inside the test process", () => {
  it("a package that uses the interpreter as projects do, with tests that patch a class and walk gc, runs clean", async () => {
    const run = await runWith(ORDINARY);
    expect(run.channel).toBe("plugin");
    expect(run.tampering).toEqual([]);
    expect(Object.fromEntries(run.outcomes)).toEqual({ "tests/test_add.py::test_add": "passed", "tests/test_sub.py::test_sub": "failed" });
  }, 120_000);

  const attacks: [string, string, RegExp][] = [
    ["pytest's TestReport.from_item_and_call replaced and the plug-in's sender silenced", FORGE_REPORTS, /TestReport\.from_item_and_call was replaced/],
    ["Function.runtest's code swapped (its identity kept)", SWAP_RUNTEST_CODE, /__code__ of _pytest\.python\.Function\.runtest/],
    ["the plug-in's senders found through gc and pointed at no descriptor", SILENCE_THROUGH_GC, /gc\.get_objects called from calc\/__init__\.py/],
  ];
  for (const [name, prefix, seen] of attacks) {
    it(`${name}: reported, and nothing counts`, async () => {
      const run = await runWith(prefix);
      expect(run.tampering.some((t) => seen.test(t))).toBe(true);
      expect(run.outcomes.size).toBe(0);
    }, 120_000);
  }

  const forgeries: [string, string][] = [
    ["every test written as passed, with the run's end, straight to the results channel found among the open descriptors", FORGE_CHANNEL],
    ["every test handed as passed, with the run's end, to the plug-in's own sender", FORGE_THROUGH_SENDER],
  ];
  for (const [name, prefix] of forgeries) {
    it(`${name} (names built at run time), then the process leaves: reported, and nothing counts`, async () => {
      const run = await runWith(prefix);
      expect(run.outcomes.size).toBe(0);
      expect(run.tampering.length).toBeGreaterThan(0);
    }, 120_000);
  }

  it("passes written straight to the plug-in's descriptor before the process leaves: the run never ended, nothing counts", async () => {
    const run = await runWith(WRITE_AND_LEAVE);
    expect(run.outcomes.size).toBe(0);
  }, 120_000);
});
