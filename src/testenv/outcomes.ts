import { worse } from "./junit.js";
import { djangoId } from "./logs.js";
import type { TestOutcome, TestRun } from "./types.js";
import { at } from "../util/at.js";

/**
 * JUnit outcomes completed by a log's: a test only the log names is added, and a JUnit pass that the
 * log calls XPASS (pytest's JUnit writes an unexpected pass as a plain pass) becomes xpass.
 */
export function mergeOutcomes(junit: Map<string, TestOutcome>, log: Map<string, TestOutcome>): Map<string, TestOutcome> {
  const out = new Map(junit);
  for (const [id, o] of log) {
    const had = out.get(id);
    if (had === undefined || (had === "passed" && o === "xpass")) out.set(id, o);
  }
  return out;
}

/** The last part of an id of any style: a pytest node's name, a Java method, a named test's own name, a Django method. */
function lastPart(id: string): string {
  const django = /^(\w+) \([\w.]+\)$/.exec(id);
  if (django) return at(django, 1);
  const cut = Math.max(id.lastIndexOf("::") + 2, id.lastIndexOf("#") + 1, id.lastIndexOf(" > ") + 3);
  return id.slice(cut);
}

interface Index {
  size: number;
  /** Outcomes by the last part of their ids, the worse kept. */
  byName: Map<string, TestOutcome>;
  /** Java classes' outcomes (the worst of their methods). */
  byClass: Map<string, TestOutcome>;
}

const indexes = new WeakMap<Map<string, TestOutcome>, Index>();

function indexOf(outcomes: Map<string, TestOutcome>): Index {
  const cached = indexes.get(outcomes);
  if (cached && cached.size === outcomes.size) return cached;
  const byName = new Map<string, TestOutcome>();
  const byClass = new Map<string, TestOutcome>();
  for (const [id, o] of outcomes) {
    const name = lastPart(id);
    byName.set(name, worse(byName.get(name), o));
    const hash = id.indexOf("#");
    if (hash > 0 && !id.includes("::")) {
      const cls = id.slice(0, hash);
      byClass.set(cls, worse(byClass.get(cls), o));
    }
  }
  const index = { size: outcomes.size, byName, byClass };
  indexes.set(outcomes, index);
  return index;
}

/**
 * The outcome of a test named as a dataset names it, or undefined when the run does not have it
 * (missing counts as failed). Tried in order: the id itself; `./` dropped from a path; a Django
 * name with the method repeated (`test_x (m.C.test_x)`) as SWE-bench writes it (`test_x (m.C)`); a
 * Java `pkg.Class.method` as `pkg.Class#method` and a bare `pkg.Class` as the worst of its methods;
 * a bare test name (SymPy's form, `test_x`) as the worst of the tests with that name; and a pytest id
 * whose parameters were cut at a space (`a.py::t[x` for `a.py::t[x y]`, as SWE-bench's log parser
 * writes them) as the worst of the tests it is a prefix of.
 */
export function outcomeOf(run: Pick<TestRun, "outcomes">, id: string): TestOutcome | undefined {
  const { outcomes } = run;
  const exact = outcomes.get(id);
  if (exact !== undefined) return exact;
  const trimmed = id.trim().replace(/^\.\//, "");
  if (trimmed !== id) return outcomeOf(run, trimmed);
  const django = /^(\w+) \(([\w.]+)\)$/.exec(id);
  if (django) {
    const normal = djangoId(at(django, 1), at(django, 2));
    return normal !== id ? outcomes.get(normal) : undefined;
  }
  const index = indexOf(outcomes);
  if (/^[\w$.]+$/.test(id) && id.includes(".")) {
    const fromClass = index.byClass.get(id);
    if (fromClass !== undefined) return fromClass;
    const dot = id.lastIndexOf(".");
    return outcomes.get(`${id.slice(0, dot)}#${id.slice(dot + 1)}`);
  }
  if (!id.includes("::") && !id.includes("#") && !id.includes(" > ")) return index.byName.get(id);
  if (id.includes("::") && id.includes("[") && !id.endsWith("]")) {
    let found: TestOutcome | undefined;
    for (const [full, o] of outcomes) if (full.startsWith(id)) found = worse(found, o);
    return found;
  }
  return undefined;
}
