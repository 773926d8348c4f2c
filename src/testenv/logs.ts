import { worse } from "./junit.js";
import type { LogFormat, TestOutcome } from "./types.js";
import { at } from "../util/at.js";

/** Colour and cursor escape sequences that some runners write even into a pipe. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, "g");

function lines(log: string): string[] {
  return log.replace(ANSI, "").split(/\r?\n/);
}

function record(out: Map<string, TestOutcome>, id: string, outcome: TestOutcome): void {
  out.set(id, worse(out.get(id), outcome));
}

const PYTEST_STATUS: Record<string, TestOutcome> = {
  PASSED: "passed",
  FAILED: "failed",
  ERROR: "error",
  XFAIL: "xfail",
  XPASS: "xpass",
  SKIPPED: "skipped",
};

/**
 * The node id at the start of `rest`: up to the first space, or, for a parametrized test whose
 * parameters may hold spaces and ` - `, up to the first `]` that ends the text or comes before a space.
 */
function leadingNodeId(rest: string): string {
  const space = rest.indexOf(" ");
  const open = rest.indexOf("[");
  if (open === -1 || (space !== -1 && space < open)) return space === -1 ? rest : rest.slice(0, space);
  for (let i = open + 1; i < rest.length; i++) {
    if (rest[i] === "]" && (i === rest.length - 1 || rest[i + 1] === " ")) return rest.slice(0, i + 1);
  }
  return rest;
}

/**
 * Outcomes from a pytest log: the `-rA` short summary (`PASSED a.py::t`, `FAILED a.py::t - msg`,
 * `ERROR a.py` for a collection error, `XFAIL`, `XPASS`) and verbose progress lines (`a.py::t PASSED
 * [ 50%]`). `SKIPPED [1] a.py:12: why` names no test and is left out (a test not in the results failed).
 */
export function parsePytestLog(log: string): Map<string, TestOutcome> {
  const out = new Map<string, TestOutcome>();
  for (const line of lines(log)) {
    const summary = /^(PASSED|FAILED|ERROR|XFAIL|XPASS) (.+)$/.exec(line);
    if (summary) {
      const id = leadingNodeId(at(summary, 2));
      if (id !== "" && !id.startsWith("[")) record(out, id, PYTEST_STATUS[at(summary, 1)] as TestOutcome);
      continue;
    }
    const progress = /^(\S+::\S.*?) (PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED)(?: +\[ *\d+%\])?$/.exec(line);
    if (progress) record(out, at(progress, 1), PYTEST_STATUS[at(progress, 2)] as TestOutcome);
  }
  return out;
}

const DJANGO_TEST = /^(\w+) \(([\w.]+)\)/;

function djangoStatus(text: string): TestOutcome | null {
  if (text === "ok") return "passed";
  if (text === "FAIL") return "failed";
  if (text === "ERROR") return "error";
  if (text === "expected failure") return "xfail";
  if (text === "unexpected success") return "xpass";
  if (text.startsWith("skipped")) return "skipped";
  return null;
}

/**
 * The name SWE-bench gives a Django test, `test_x (module.Class)`. Python 3.11 and later print
 * `test_x (module.Class.test_x)`; the trailing method name is dropped.
 */
export function djangoId(method: string, dotted: string): string {
  const owner = dotted.endsWith(`.${method}`) ? dotted.slice(0, -method.length - 1) : dotted;
  return `${method} (${owner})`;
}

/**
 * Outcomes from Django's runner at verbosity 2: `test_x (module.Class) ... ok|FAIL|ERROR|skipped
 * 'why'|expected failure|unexpected success`, read as SWE-bench's parser reads them. A test with a
 * docstring prints the docstring's first line on the next line, where the status then is: the outcome
 * is recorded for the test and for that line (SWE-bench's id for such a test). A status printed after
 * other output (`test_x (m.C) ... some output`, then `ok` on a later line) is credited to the test
 * last seen with ` ... `; `FAIL: test_x (m.C)` and `ERROR: …` headers of the failure report count too.
 */
export function parseDjangoLog(log: string): Map<string, TestOutcome> {
  const out = new Map<string, TestOutcome>();
  /** The test (and its docstring key) awaiting a status. */
  let pending: string[] = [];
  let named: string | null = null;
  for (const raw of lines(log)) {
    const line = raw.trim();
    const test = DJANGO_TEST.exec(line);
    const dots = line.indexOf(" ... ");
    const status = dots === -1 ? null : djangoStatus(line.slice(dots + 5).trim());
    const header = /^(FAIL|ERROR): (\w+) \(([\w.]+)\)/.exec(line);
    if (header) {
      record(out, djangoId(at(header, 2), at(header, 3)), header[1] === "FAIL" ? "failed" : "error");
      pending = [];
      continue;
    }
    if (test) {
      const id = djangoId(at(test, 1), at(test, 2));
      named = id;
      if (status) {
        record(out, id, status);
        pending = [];
      } else pending = [id];
      continue;
    }
    if (dots !== -1) {
      // A docstring's first line, with the status of the test named on the line before.
      const keys = named !== null && pending.includes(named) ? [named, line.slice(0, dots)] : [line.slice(0, dots)];
      if (status) {
        for (const k of keys) record(out, k, status);
        pending = [];
      } else pending = keys;
      continue;
    }
    if (pending.length > 0 && /^ok\b/.test(line)) {
      for (const k of pending) record(out, k, "passed");
      pending = [];
      continue;
    }
    if (pending.length > 0) {
      const late = djangoStatus(line);
      if (late && late !== "passed") {
        for (const k of pending) record(out, k, late);
        pending = [];
      }
    }
  }
  return out;
}

const SYMPY_STATUS: Record<string, TestOutcome> = { ok: "passed", F: "failed", E: "error", f: "xfail", X: "xpass", s: "skipped", w: "skipped" };

/** Outcomes from SymPy's `bin/test --verbose`: `test_x ok`, `test_x F`, `test_x E`, `f` (expected failure), `X`, `s`; ids are bare names. */
export function parseSympyLog(log: string): Map<string, TestOutcome> {
  const out = new Map<string, TestOutcome>();
  for (const line of lines(log)) {
    const m = /^\s*(test_\w+) +(ok|F|E|f|X|s|w)(?: +\[[^\]]*\])?\s*$/.exec(line);
    if (m) record(out, at(m, 1), SYMPY_STATUS[at(m, 2)] as TestOutcome);
  }
  return out;
}

const JEST_MARK: Record<string, TestOutcome> = { "✓": "passed", "√": "passed", "✕": "failed", "×": "failed", "○": "skipped", "✎": "skipped" };

/**
 * Outcomes from Jest's `--verbose` tree: a file line (`PASS a.test.js`), describe blocks as indented
 * headings, tests as `✓ name (2 ms)`, `✕ name`, `○ skipped name`, `✎ todo name`; ids are the
 * describe blocks and the name joined by ` > ` (the `names` style of JUnit results).
 */
export function parseJestLog(log: string): Map<string, TestOutcome> {
  const out = new Map<string, TestOutcome>();
  let stack: Array<{ indent: number; name: string }> = [];
  for (const raw of lines(log)) {
    if (/^\s*(PASS|FAIL)\s+\S/.test(raw)) {
      stack = [];
      continue;
    }
    const m = /^(\s+)(\S.*?)\s*$/.exec(raw);
    if (!m) {
      if (raw.trim() !== "") stack = [];
      continue;
    }
    const indent = at(m, 1).length;
    const text = at(m, 2);
    stack = stack.filter((s) => s.indent < indent);
    const outcome = JEST_MARK[text.charAt(0)];
    if (outcome === undefined) {
      if (!text.startsWith("●")) stack.push({ indent, name: text });
      continue;
    }
    const name = text.slice(1).trim().replace(/^(skipped|todo) /, "").replace(/ \(\d+(\.\d+)? m?s\)$/, "");
    record(out, [...stack.map((s) => s.name), name].join(" > "), outcome);
  }
  return out;
}

/** The log parser a spec selects. */
export function parseTestLog(format: LogFormat, log: string): Map<string, TestOutcome> {
  switch (format) {
    case "pytest":
      return parsePytestLog(log);
    case "django":
      return parseDjangoLog(log);
    case "sympy":
      return parseSympyLog(log);
    case "jest":
      return parseJestLog(log);
    case "none":
      return new Map();
  }
}
