import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readRegularFile } from "../util/files.js";
import { worse } from "./junit.js";
import { guardSource } from "./pytest-guard.js";
import type { TestOutcome } from "./types.js";

/**
 * gitgood's own pytest plugin, the channel test results of Python projects come back by.
 *
 * The code under test can write anywhere the test run can, so a result file in the work tree (or one
 * whose path the test environment names) can be rewritten by it. Results come instead over a socket to
 * gitgood that no path names, file descriptor 3, and every line on it is written and signed by gitgood's
 * guard (src/testenv/pytest-guard.ts), which Python runs at start-up before pytest or the project and which
 * alone holds the run's key. This plug-in, loaded by name through `PYTEST_PLUGINS` from the same read-only
 * directory outside the work tree (the guard imports it first), makes the lines: one per test phase, the
 * run's exit status at its end, and what it sees of tampering. A report that says "passed" while the phase
 * raised is recorded as a failure and as tampering; at the end a hook implemented in the work tree outside a
 * conftest and registered after the session started (while test modules, and the project's code they
 * import, load) is reported as tampering. Only the run's own session is reported: sessions a test starts
 * in-process (pytest's pytester) are left alone. docs/test-verdicts.md says what this trusts.
 */
export const PLUGIN_MODULE = "_gitgood_results";

const PLUGIN_SOURCE = String.raw`"""gitgood's results channel for pytest (written by gitgood; do not edit). PYTEST_DONT_REWRITE"""
import os
import sys

import pytest

_audit = sys.audit
_getcwd = os.getcwd
_sep = os.sep

_CWD = _getcwd()
# gitgood started this run with plugin autoloading off and names the plugins to load instead; neither
# variable reaches what the tests start (a test running pytest again gets pytest's own defaults). They are
# taken when pytest registers this plug-in, once it has read the first (gitgood's guard imports it earlier).
_PLUGINS = []


def _send(*fields, _audit=_audit):
    # gitgood's guard (sitecustomize) writes the line, signed, when this function called by this plug-in's
    # own functions raised the event; without the guard nothing is written, and the run counts nothing.
    _audit("gitgood.results", *fields)


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
_STATUS = []


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
    if _PLUGINS:
        return
    names = os.environ.pop("GITGOOD_PYTEST_PLUGINS", None)
    _PLUGINS.append(names)
    if names is not None:
        os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
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


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call, _send=_send, _test_id=_test_id, _main=_main):
    if not _main(item.config):
        yield
        return
    result = yield
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


def _check(_send=_send):
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
def pytest_sessionfinish(session, exitstatus):
    if _main(session.config):
        _STATUS.append(str(int(exitstatus)))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config, _send=_send, _check=_check, _main=_main):
    if _main(config):
        _check()
        _send("end", _STATUS[-1] if _STATUS else "")
`;

/** The plugin's source, for tests and the docs. */
export function pluginSource(): string {
  return PLUGIN_SOURCE;
}

/**
 * A directory holding the plugin and the guard (`<root>/pytest-plugin/<hash>/_gitgood_results.py` and
 * `sitecustomize.py`), written once per content; test runs get it read-only, first on PYTHONPATH.
 */
export function pluginDir(root: string): string {
  const files: [string, string][] = [
    [`${PLUGIN_MODULE}.py`, PLUGIN_SOURCE],
    ["sitecustomize.py", guardSource()],
  ];
  const hash = createHash("sha256");
  for (const [name, source] of files) hash.update(name).update("\0").update(source).update("\0");
  const dir = path.join(root, "pytest-plugin", hash.digest("hex").slice(0, 16));
  for (const [name, source] of files) {
    const file = path.join(dir, name);
    if (readRegularFile(file) === source) continue;
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, source, { mode: 0o444 });
    renameSync(tmp, file);
  }
  return dir;
}

/** The bytes of a run's key: written to the guard on the channel as the run starts. */
export const CHANNEL_KEY_BYTES = 32;

/** What the plugin sent: whether it started and ended (and pytest's exit status then), each test's outcome, and the tampering seen. */
export interface PluginReport {
  started: boolean;
  ended: boolean;
  /** The exit status pytest gave its session, as the end line says (null when it said none). */
  status: number | null;
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

/**
 * Reads the guard's lines (`<hmac>\t<number>\t<fields…>`, tab-separated, the last one possibly cut), each
 * signed with the run's `key` and numbered from 0. The first line that is not (a line written to the
 * socket by anything but the guard) is reported as tampering, and nothing from it on is read.
 */
export function readPluginReport(channel: Buffer, key: Buffer): PluginReport {
  const report: PluginReport = { started: false, ended: false, status: null, outcomes: new Map(), tampering: [] };
  const tamper = (why: string): void => {
    if (why !== "" && !report.tampering.includes(why)) report.tampering.push(why);
  };
  const text = channel.toString("latin1");
  const lines = text.split("\n");
  // A last line with no newline was cut by the output limit: it is not read.
  lines.pop();
  let expected = 0;
  for (const raw of lines) {
    const tab = raw.indexOf("\t");
    const body = Buffer.from(raw.slice(tab + 1), "latin1");
    const mac = tab > 0 ? Buffer.from(raw.slice(0, tab), "latin1") : Buffer.alloc(0);
    const want = Buffer.from(createHmac("sha256", key).update(body).digest("hex"), "latin1");
    const [number, ...rest] = body.toString("utf8").split("\t");
    if (mac.length !== want.length || !timingSafeEqual(mac, want) || number !== String(expected)) {
      tamper("a line on the results channel was not written by gitgood's guard (unsigned, wrongly signed or out of order)");
      break;
    }
    expected++;
    const f = rest.map(unescape);
    switch (f[0]) {
      case "start":
        report.started = true;
        break;
      case "end":
        report.ended = true;
        report.status = /^\d+$/.test(f[1] ?? "") ? Number(f[1]) : null;
        break;
      case "tamper":
        tamper(f[1] ?? "");
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
