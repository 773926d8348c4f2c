import { writeFileSync } from "node:fs";
import { bareRepositoryFields, type SweSample } from "../../src/dataset/sample.js";
import type { Repo } from "../../src/git/repo.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { sandboxAt } from "../../src/swe/evaluate.js";
import { Fixture } from "./fixture.js";

/**
 * A Python project with a pytest suite and a bug, as a SWE-bench instance would see it: `calc.sub`
 * adds instead of subtracting. `base` is the commit the task starts at; `fix` the commit that fixes the
 * bug and adds the tests deciding it (split into the gold `patch` and `test_patch`); `later` a commit
 * after it. The suite: tests/test_calc.py (test_add, test_mul: PASS_TO_PASS) and the new
 * tests/test_sub.py (test_sub, test_sub_negative: FAIL_TO_PASS).
 */
export interface PythonTask {
  fixture: Fixture;
  base: string;
  fix: string;
  later: string;
  gold: string;
  testPatch: string;
  sample: (overrides?: Partial<SweSample["scenario"]>, id?: string) => SweSample;
}

export const CALC_BASE = [
  "def add(a, b):",
  "    return a + b",
  "",
  "",
  "def sub(a, b):",
  "    return a + b",
  "",
  "",
  "def mul(a, b):",
  "    return a * b",
  "",
].join("\n");

const TESTS_CALC = "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n";
const TESTS_SUB = "from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n\n\ndef test_sub_negative():\n    assert sub(0, 5) == -5\n";

export const F2P = ["tests/test_sub.py::test_sub", "tests/test_sub.py::test_sub_negative"];
export const P2P = ["tests/test_calc.py::test_add", "tests/test_calc.py::test_mul"];

/** Builds the Python task's repository; `extra` files are committed at the base as well. */
export function pythonTask(extra: Record<string, string> = {}): PythonTask {
  const f = new Fixture();
  f.commit("calc package", { "pyproject.toml": '[project]\nname = "calc"\nversion = "0.1.0"\n', "calc/__init__.py": CALC_BASE, "tests/test_calc.py": TESTS_CALC, ...extra });
  const base = f.commit("more docs", { "README.md": "calc\n" });
  const fix = f.commit("Fix sub", { "calc/__init__.py": CALC_BASE.replace("def sub(a, b):\n    return a + b", "def sub(a, b):\n    return a - b"), "tests/test_sub.py": TESTS_SUB });
  const later = f.commit("Later work", { "calc/extra.py": "X = 1\n" });
  const gold = `${f.git("diff", "--no-color", base, fix, "--", "calc")}\n`;
  const testPatch = `${f.git("diff", "--no-color", base, fix, "--", "tests")}\n`;
  const sample = (overrides: Partial<SweSample["scenario"]> = {}, id = "acme__calc-1"): SweSample => ({
    id,
    ...bareRepositoryFields("acme/calc", "Python"),
    difficulty: "easy",
    sample_type: "swe",
    scenario: {
      instance_id: id,
      repo: "acme/calc",
      base_commit: base,
      patch: gold,
      test_patch: testPatch,
      problem_statement: "calc.sub(3, 1) returns 4; it should subtract.",
      hints_text: "Look at calc/__init__.py.",
      created_at: null,
      version: "0.1",
      environment_setup_commit: null,
      FAIL_TO_PASS: F2P,
      PASS_TO_PASS: P2P,
      ...overrides,
    },
  });
  return { fixture: f, base, fix, later, gold, testPatch, sample };
}

/**
 * Lines that code under test can run at import to forge a pytest run from inside it: every report made
 * from a call that raised says passed (pytest's `TestReport.from_item_and_call` sees no exception), and
 * gitgood's results plug-in, found in `sys.modules`, sends no more tamper lines.
 */
export const FORGE_REPORTS = [
  "import sys as _sys",
  "",
  "import _pytest.reports as _reports",
  "",
  "_made = _reports.TestReport.from_item_and_call.__func__",
  "",
  "",
  "def _passing(cls, item, call):",
  "    call.excinfo = None",
  "    return _made(cls, item, call)",
  "",
  "",
  "_reports.TestReport.from_item_and_call = classmethod(_passing)",
  "_channel = _sys.modules.get('_gitgood_results')",
  "if _channel is not None:",
  "    _sent = _channel._send",
  "    _channel._send = lambda *fields: None if fields[:1] == ('tamper',) else _sent(*fields)",
  "",
].join("\n");

/** A patch of calc/__init__.py from the base content to `after`, as `git diff` writes it. */
export function calcPatch(task: PythonTask, after: string): string {
  const dir = task.fixture.scratch(`patch-${Math.random().toString(36).slice(2)}`);
  const a = `${dir}/a.py`;
  const b = `${dir}/b.py`;
  writeFileSync(a, CALC_BASE);
  writeFileSync(b, after);
  const r = task.fixture.tryGitIn(dir, "diff", "--no-index", "--no-color", "a.py", "b.py");
  const out = r.stdout.replaceAll("a/a.py", "a/calc/__init__.py").replaceAll("b/b.py", "b/calc/__init__.py");
  return out.endsWith("\n") ? out : `${out}\n`;
}

/** A patch that adds `files` (path → content), as `git diff` writes new files. */
export function addedFiles(files: Record<string, string>): string {
  return Object.entries(files)
    .map(([file, content]) => {
      const lines = content.endsWith("\n") ? content.slice(0, -1).split("\n") : content.split("\n");
      return [`diff --git a/${file} b/${file}`, "new file mode 100644", "--- /dev/null", `+++ b/${file}`, `@@ -0,0 +1,${lines.length} @@`, ...lines.map((l) => `+${l}`), ""].join("\n");
    })
    .join("");
}

/** Runs `work` in a fresh evaluation sandbox of `sample` at its base commit, removed afterwards whatever happens. */
export async function inEvaluationSandbox(source: Repo, sample: SweSample, label: string, work: (s: Sandbox) => Promise<void>): Promise<void> {
  const sandbox = await sandboxAt(source, sample, label, {});
  try {
    await work(sandbox);
  } finally {
    sandbox.remove();
  }
}

/**
 * Lines that find every test the run was given (the files and directories on pytest's command line, their
 * top-level `def test_…`), for the forgeries below: `_ids` is then a list of pytest ids.
 */
const FIND_TESTS = [
  "_os = __import__('o' + 's')",
  "_sys = __import__('s' + 'ys')",
  "_ids = []",
  "for _arg in getattr(_sys, 'ar' + 'gv')[1:]:",
  "    _files = [_arg] if _os.path.isfile(_arg) else [_os.path.join(_d, _n) for _d, _s, _ns in _os.walk(_arg) for _n in _ns if _n.startswith('test_') and _n.endswith('.py')] if _os.path.isdir(_arg) else []",
  "    for _f in _files:",
  "        for _line in open(_f).read().split(chr(10)):",
  "            if _line.startswith('def test_'):",
  "                _ids.append(_os.path.relpath(_f).replace(_os.sep, '/') + '::' + _line[4:].split('(')[0])",
].join("\n");

/**
 * Lines prepended to a package under test that forge its pytest run through the results channel itself,
 * every name built at run time (so that no text of the change names pytest, sys.modules or the plug-in):
 * the channel is found among the open descriptors (the socket), every test is written to it as passed
 * in each phase with the run's end, and the process leaves before any test runs.
 */
export const FORGE_CHANNEL = [
  FIND_TESTS,
  "_stat = __import__('st' + 'at')",
  "for _fd in range(3, 1024):",
  "    try:",
  "        if not _stat.S_ISSOCK(_os.fstat(_fd).st_mode):",
  "            continue",
  "    except OSError:",
  "        continue",
  "    _lines = ['start\\t1'] + ['phase\\t%s\\t%s\\tpassed\\t' % (_t, _w) for _t in _ids for _w in ('setup', 'call', 'teardown')] + ['end\\t0']",
  "    try:",
  "        _os.write(_fd, (chr(10).join(_lines) + chr(10)).encode())",
  "    except OSError:",
  "        pass",
  "getattr(_os, '_ex' + 'it')(0)",
  "",
].join("\n");

/**
 * Lines prepended to a package under test that forge its pytest run through gitgood's own plug-in, names
 * built at run time: the plug-in's sender, found among the loaded modules, is handed every test as passed
 * in each phase and the run's end, and the process leaves before any test runs.
 */
export const FORGE_THROUGH_SENDER = [
  FIND_TESTS,
  "_plugin = getattr(_sys, 'mod' + 'ules').get('_gitgood' + '_results')",
  "_send = getattr(_plugin, '_se' + 'nd', None)",
  "if _send is not None:",
  "    for _t in _ids:",
  "        for _w in ('setup', 'call', 'teardown'):",
  "            _send('phase', _t, _w, 'passed', '')",
  "    _send('end', '0')",
  "getattr(_os, '_ex' + 'it')(0)",
  "",
].join("\n");

/** A test of calc.power that fails on every other run (it counts its runs in a file beside the tests' folder): what the flake gate drops. */
export const FLAKY_POWER_TEST = [
  "import pathlib",
  "",
  "COUNTER = pathlib.Path(__file__).resolve().parent.parent / '.runs'",
  "",
  "",
  "def test_power_sometimes():",
  "    n = int(COUNTER.read_text()) + 1 if COUNTER.exists() else 1",
  "    COUNTER.write_text(str(n))",
  "    from calc import power",
  "",
  "    assert n % 2 == 0 and power(2, 3) == 8",
  "",
].join("\n");
