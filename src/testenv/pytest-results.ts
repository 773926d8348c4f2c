import { createHash } from "node:crypto";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readRegularFile } from "../util/files.js";
import { worse } from "./junit.js";
import type { TestOutcome } from "./types.js";

/**
 * gitgood's own pytest plugin, the channel test results of Python projects come back by.
 *
 * The code under test can write anywhere the test run can, so a result file in the work tree (or one
 * whose path the test environment names) can be rewritten by it. This plugin is loaded by name through
 * `PYTEST_PLUGINS` from a read-only directory outside the work tree, before any conftest or project
 * module is imported, and writes one line per test phase to file descriptor 3: a pipe to gitgood that
 * no path names (`GITGOOD_RESULTS_FD=3` says it is there, a pipe or socket; the plugin removes the variable, so nothing
 * the tests start inherits it). At load it moves the pipe to a high, non-inheritable descriptor and closes 3, takes its
 * own references to what it calls (bound into its functions when they are defined, so that replacing a
 * name in its module changes nothing they do), and notes the identity of the pytest internals that decide
 * an outcome. It is its own second channel: a report that says "passed" while the phase raised is recorded
 * as a failure and as tampering; at every report a replaced pytest internal or plug-in function, and at the
 * end a hook implemented in the work tree outside a conftest and registered after the session started
 * (while test modules, and the project's code they import, load), is reported as tampering. An audit hook
 * (which Python code cannot remove) reports at once what the project's code does that reaches the run: a
 * swapped `__code__` or defaults of a pytest, pluggy or plug-in function, and, called from a file of the
 * project that is not a test, gc's object walks, ctypes' memory access or tracing. A run whose plug-in never
 * sent its end line counts nothing. Only the run's own session is reported: sessions a test starts
 * in-process (pytest's pytester) are left alone. Code under test shares the interpreter, so this is a
 * second line, not a proof: whatever the plug-in can write, code in the process can write (its descriptor
 * and functions are reachable). The first line is the static check of the agent's change
 * (src/testenv/harness-reach.ts), which refuses code that reaches for any of this.
 */
export const PLUGIN_MODULE = "_gitgood_results";

const PLUGIN_SOURCE = String.raw`"""gitgood's results channel for pytest (written by gitgood; do not edit)."""
import fcntl
import os
import stat
import sys

import pytest

_write = os.write
_close = os.close
_getcwd = os.getcwd
_sep = os.sep


def _take_channel():
    # Only the process gitgood started gets the channel: the variable is gone for anything it starts.
    if os.environ.pop("GITGOOD_RESULTS_FD", None) != "3":
        return None
    try:
        mode = os.fstat(3).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
            return None
        fd = fcntl.fcntl(3, fcntl.F_DUPFD_CLOEXEC, 517)
    except OSError:
        return None
    try:
        _close(3)
    except OSError:
        pass
    return fd


_FD = _take_channel()
_CWD = _getcwd()
# gitgood started this run with plugin autoloading off and names the plugins to load instead; neither
# variable reaches what the tests start (a test running pytest again gets pytest's own defaults).
_PLUGINS = os.environ.pop("GITGOOD_PYTEST_PLUGINS", None)
if _PLUGINS is not None:
    os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)


def _field(text):
    return str(text).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def _sender(fd, write, field):
    # The plug-in's functions are handed this sender as a default argument when they are defined, so
    # replacing a name in this module changes nothing they send; each tamper message goes out once.
    said = set()

    def send(*fields):
        if fd is None:
            return
        if fields[0] == "tamper":
            if fields[1] in said:
                return
            said.add(fields[1])
        line = ("\t".join(field(f) for f in fields) + "\n").encode("utf-8", "replace")
        try:
            while line:
                line = line[write(fd, line):]
        except OSError:
            pass

    return send


_send = _sender(_FD, _write, _field)


_WATCHED = [
    "_pytest.runner:call_and_report",
    "_pytest.runner:call_runtest_hook",
    "_pytest.runner:runtestprotocol",
    "_pytest.runner:check_interactive_exception",
    "_pytest.runner:CallInfo.from_call",
    "_pytest.reports:TestReport.from_item_and_call",
    "_pytest.reports:TestReport.__init__",
    "_pytest.reports:BaseReport.passed",
    "_pytest.reports:BaseReport.failed",
    "_pytest.python:Function.runtest",
    "_pytest.python:pytest_pyfunc_call",
    "_pytest.unittest:TestCaseFunction.runtest",
    "_pytest.skipping:pytest_runtest_makereport",
    "_pytest.terminal:TerminalReporter.pytest_runtest_logreport",
    "pluggy._callers:_multicall",
    "pluggy._hooks:HookCaller.__call__",
    "pluggy._manager:PluginManager._hookexec",
]
for _name in ("_pytest.runner", "_pytest.reports", "_pytest.python", "_pytest.unittest", "_pytest.skipping", "_pytest.terminal", "pluggy._callers", "pluggy._hooks", "pluggy._manager"):
    try:
        __import__(_name)
    except Exception:
        pass


def _links(names):
    # Each step of each watched name as (the live namespace it is found in, its key there, what it is now):
    # a check at every report is then one dictionary look-up a step, and replacing a class in its module
    # is seen as well as replacing a method in its class.
    seen = {}
    for dotted in names:
        module, _, rest = dotted.partition(":")
        obj = sys.modules.get(module)
        for part in rest.split("."):
            space = getattr(obj, "__dict__", None)
            if space is None or space.get(part) is None:
                break
            seen.setdefault((id(space), part), (space, part, space[part], dotted))
            obj = space[part]
    return tuple(seen.values())


_ORIGINAL = _links(_WATCHED)
_HOOKS = (
    "pytest_runtest_makereport",
    "pytest_runtest_logreport",
    "pytest_report_teststatus",
    "pytest_runtest_protocol",
    "pytest_runtest_call",
    "pytest_pyfunc_call",
    "pytest_collection_modifyitems",
    "pytest_sessionfinish",
)
_CONFIG = []
_BASELINE = []


def _watch(send, cwd, getframe, sep):
    # An audit hook (one no Python code can remove) that reports, the moment it happens and through a sender
    # of its own, what the code under test has no business doing during its own test run: swapping the code
    # or defaults of a function of pytest, pluggy or this plug-in (which keeps the function's identity), and,
    # called from a file of the project that is not a test, walking the interpreter's objects, reading its
    # memory or tracing it.
    roots = tuple(sorted({cwd + sep, os.path.realpath(cwd) + sep}))
    harness = frozenset(("_pytest", "pytest", "pluggy", "_gitgood_results"))
    swapped = frozenset(("__code__", "__defaults__", "__kwdefaults__"))
    reaching = frozenset(("gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys.settrace", "sys.setprofile",
                          "ctypes.addressof", "ctypes.cdata", "ctypes.PyObj_FromPtr", "ctypes.string_at", "ctypes.wstring_at", "ctypes.dlsym"))
    test_dirs = frozenset(("tests", "test", "_pytest", "pluggy"))

    def project(filename):
        # The path of a file of the work tree that is not a test (the project's code), else None.
        for root in roots:
            if filename.startswith(root):
                rel = filename[len(root):]
                parts = rel.split(sep)
                name = parts[-1]
                if test_dirs.intersection(parts[:-1]) or name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py"):
                    return None
                return rel
        return None

    watched = reaching | frozenset(("object.__setattr__", "object.__delattr__"))

    def hook(event, args):
        # Every audit event of the run comes through here: one set look-up lets the rest pass.
        if event not in watched:
            return
        if event == "object.__setattr__" or event == "object.__delattr__":
            if len(args) < 2 or args[1] not in swapped:
                return
            module = getattr(args[0], "__module__", None)
            if isinstance(module, str) and module.partition(".")[0] in harness:
                send("tamper", "the " + args[1] + " of " + module + "." + str(getattr(args[0], "__qualname__", "?")) + " was replaced during the run")
        elif event in reaching:
            if event == "ctypes.dlsym" and not (len(args) > 1 and isinstance(args[1], str) and args[1].lstrip("_").startswith("Py")):
                return
            rel = project(getframe(1).f_code.co_filename)
            if rel is not None:
                send("tamper", event + " called from " + rel + " (the project's code) during the run")

    return hook


if _FD is not None:
    sys.addaudithook(_watch(_sender(_FD, _write, _field), _CWD, sys._getframe, _sep))
_send("start", "1")


def _test_id(item):
    nodeid = item.nodeid
    file, sep, rest = nodeid.partition("::")
    try:
        root = str(item.config.rootpath)
    except AttributeError:
        root = str(item.config.rootdir)
    rel = os.path.relpath(os.path.join(root, file), _CWD)
    if rel.startswith(".."):
        rel = file
    return rel.replace(_sep, "/") + sep + rest


def _in_work_tree(filename):
    try:
        full = os.path.realpath(filename)
    except Exception:
        return False
    base = os.path.realpath(_CWD)
    return full.startswith(base + _sep)


def _main(config):
    return bool(_CONFIG) and config is _CONFIG[0]


def pytest_addhooks(pluginmanager):
    # Called as soon as this plugin is registered (PYTEST_PLUGINS), before the command line is parsed:
    # the named plugins load as autoloading would have loaded them, under their entry-point names (so
    # "-p no:NAME" still blocks one), their modules marked for assertion rewriting.
    global _PLUGINS
    names, _PLUGINS = _PLUGINS, None
    wanted = set(n for n in (names or "").split(",") if n)
    if not wanted:
        return
    from importlib import metadata
    rewrite = getattr(pluginmanager, "rewrite_hook", None)
    for dist in list(metadata.distributions()):
        for ep in dist.entry_points:
            if ep.group == "pytest11" and ep.name in wanted and rewrite is not None:
                try:
                    rewrite.mark_rewrite(ep.value.split(":")[0].strip())
                except Exception:
                    pass
    for name in sorted(wanted):
        pluginmanager.load_setuptools_entrypoints("pytest11", name=name)


def pytest_configure(config):
    # The first configuration is the run's; sessions a test starts in-process (pytester) are not reported.
    if not _CONFIG:
        _CONFIG.append(config)


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session):
    if _main(session.config):
        for hook in _HOOKS:
            caller = getattr(session.config.hook, hook, None)
            if caller is not None:
                _BASELINE.extend(impl.function for impl in caller.get_hookimpls())


def _verify(_send=_send, _original=_ORIGINAL, _globals=globals()):
    # Run at every report, not only at the end: a replacement the code under test puts back before the run
    # ends is still seen while it forges.
    for space, key, original, name in _original:
        if space.get(key) is not original:
            _send("tamper", "pytest's " + name + " was replaced during the run")
    for name, original in _globals.get("_OWN", ()):
        if _globals.get(name) is not original:
            _send("tamper", "gitgood's results plugin was changed during the run (" + name + ")")


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call, _send=_send, _test_id=_test_id, _main=_main, _verify=_verify):
    if not _main(item.config):
        yield
        return
    result = yield
    _verify()
    try:
        rep = result.get_result()
    except BaseException:
        _send("phase", _test_id(item), call.when, "error", "")
        return
    outcome = rep.outcome
    xfail = "1" if hasattr(rep, "wasxfail") else ""
    excinfo = call.excinfo
    if outcome == "passed" and excinfo is not None:
        skip = getattr(pytest.skip, "Exception", None)
        if skip is None or not excinfo.errisinstance(skip):
            _send("tamper", "the report of " + _test_id(item) + " (" + call.when + ") says passed, but it raised " + excinfo.typename)
            outcome = "failed"
    _send("phase", _test_id(item), call.when, outcome, xfail)


def _check(_send=_send, _verify=_verify):
    _verify()
    for config in _CONFIG:
        for hook in _HOOKS:
            caller = getattr(config.hook, hook, None)
            if caller is None:
                continue
            for impl in caller.get_hookimpls():
                if any(impl.function is known for known in _BASELINE):
                    continue
                code = getattr(impl.function, "__code__", None)
                filename = code.co_filename if code is not None else ""
                if filename and _in_work_tree(filename) and os.path.basename(filename) != "conftest.py":
                    _send("tamper", "a " + hook + " hook from " + os.path.relpath(filename, _CWD) + " (not a conftest of the evaluation)")


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config, _send=_send, _check=_check, _main=_main):
    if _main(config):
        _check()
        _send("end", "1")


# What the plug-in's own names are bound to once it is loaded (each run of _verify compares).
_OWN = tuple((k, v) for k, v in dict(globals()).items() if callable(v) and not isinstance(v, type))
`;

/** The plugin's source, for tests and the docs. */
export function pluginSource(): string {
  return PLUGIN_SOURCE;
}

/**
 * A directory holding the plugin (`<root>/pytest-plugin/<hash>/_gitgood_results.py`), written once
 * per content; test runs get it read-only, first on PYTHONPATH.
 */
export function pluginDir(root: string): string {
  const hash = createHash("sha256").update(PLUGIN_SOURCE).digest("hex").slice(0, 16);
  const dir = path.join(root, "pytest-plugin", hash);
  const file = path.join(dir, `${PLUGIN_MODULE}.py`);
  if (readRegularFile(file) === PLUGIN_SOURCE) return dir;
  mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, PLUGIN_SOURCE, { mode: 0o444 });
  renameSync(tmp, file);
  return dir;
}

/** What the plugin sent: whether it started and ended, each test's outcome, and the tampering it saw. */
export interface PluginReport {
  started: boolean;
  ended: boolean;
  outcomes: Map<string, TestOutcome>;
  tampering: string[];
}

function unescape(field: string): string {
  return field.replace(/\\(\\|t|n)/g, (_, c: string) => (c === "t" ? "\t" : c === "n" ? "\n" : "\\"));
}

/** A phase's outcome as a test's: a failing set-up or tear-down is an error; xfail and xpass from `wasxfail`. */
function phaseOutcome(when: string, outcome: string, xfail: boolean): TestOutcome | null {
  if (outcome === "failed") return when === "call" ? "failed" : "error";
  if (outcome === "error") return "error";
  if (outcome === "skipped") return xfail ? "xfail" : when === "teardown" ? null : "skipped";
  if (outcome === "passed") return when === "call" ? (xfail ? "xpass" : "passed") : null;
  return null;
}

/** Reads the plugin's lines (tab-separated fields; the last line may be cut). */
export function readPluginReport(channel: Buffer): PluginReport {
  const report: PluginReport = { started: false, ended: false, outcomes: new Map(), tampering: [] };
  for (const raw of channel.toString("utf8").split("\n")) {
    const f = raw.split("\t").map(unescape);
    switch (f[0]) {
      case "start":
        report.started = true;
        break;
      case "end":
        report.ended = true;
        break;
      case "tamper":
        if (f[1] && !report.tampering.includes(f[1])) report.tampering.push(f[1]);
        break;
      case "phase": {
        const [, id, when, outcome, xfail] = f;
        if (!id || !when || !outcome) break;
        const o = phaseOutcome(when, outcome, xfail === "1");
        if (o === null) break;
        report.outcomes.set(id, worse(report.outcomes.get(id), o));
        break;
      }
      default:
        break;
    }
  }
  return report;
}
