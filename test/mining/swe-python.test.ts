import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeSweRecord } from "../../src/swe/dataset.js";
import type { SweSample } from "../../src/dataset/sample.js";
import { Repo } from "../../src/git/repo.js";
import { instanceRecord } from "../../src/swe/mine/instance.js";
import { mineSwe, type SweMineResult } from "../../src/swe/mine/mine.js";
import { evaluatePatch } from "../../src/swe/evaluate.js";
import { validateInstance } from "../../src/swe/validate.js";
import { useCacheDir } from "../helpers/envs.js";
import { Fixture } from "../helpers/fixture.js";
import { useSandboxRoot } from "../helpers/scenarios.js";
import { CALC_BASE, FLAKY_POWER_TEST } from "../helpers/swe.js";

/*
 * A Python library whose history holds one candidate of every kind: a bug fix with its test (kept), a
 * change without tests, a change whose new test passes before, a feature whose only test is flaky (it
 * alternates on a counter file it keeps in the work tree: deterministic, never timing), and a merged
 * branch whose two commits bring source and test apart (the merge, as a pull request, is kept).
 */

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let f: Fixture;
const c: Record<string, string> = {};
let result: SweMineResult;

const TESTS_CALC = "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n";
const FIXED = CALC_BASE.replace("def sub(a, b):\n    return a + b", "def sub(a, b):\n    return a - b");

function mine(runs = 3, dates: { since?: number; until?: number } = {}): Promise<SweMineResult> {
  return mineSwe({ repoPath: f.dir, name: "acme/calc", runs, jobs: 2, ...dates, swe: { cacheDir: cache.dir, testTimeoutSeconds: 120, setupTimeoutSeconds: 300 } });
}

beforeAll(async () => {
  root = useSandboxRoot();
  cache = useCacheDir();
  f = new Fixture();
  c.root = f.commit("calc package", { "pyproject.toml": '[project]\nname = "calc"\nversion = "0.1.0"\n', "calc/__init__.py": CALC_BASE, "tests/test_calc.py": TESTS_CALC });
  c.fix = f.commit("Fix sub: it added its arguments\n\nsub(3, 1) gave 4.", {
    "calc/__init__.py": FIXED,
    "tests/test_calc.py": `${TESTS_CALC}\n\ndef test_sub():\n    from calc import sub\n    assert sub(3, 1) == 2\n`,
  });
  c.docs = f.commit("Document calc", { "README.md": "calc\n", "calc/__init__.py": `"""Small arithmetic."""\n${FIXED}` });
  c.passing = f.commit("Tidy mul, test it more", {
    "calc/__init__.py": `"""Small arithmetic."""\n${FIXED.replace("return a * b", "return b * a")}`,
    "tests/test_more.py": "from calc import mul\n\n\ndef test_mul_zero():\n    assert mul(0, 7) == 0\n",
  });
  const withPower = `"""Small arithmetic."""\n${FIXED.replace("return a * b", "return b * a")}\n\ndef power(a, b):\n    return a ** b\n`;
  c.flaky = f.commit("Add power", { "calc/__init__.py": withPower, "tests/test_power.py": FLAKY_POWER_TEST, ".gitignore": ".runs\n" });
  f.checkout("neg", true);
  c.negSource = f.commit("Add neg", { "calc/__init__.py": `${withPower}\n\ndef neg(a):\n    return -a\n` });
  c.negTest = f.commit("Test neg", { "tests/test_neg.py": "from calc import neg\n\n\ndef test_neg():\n    assert neg(2) == -2\n" });
  f.checkout("main");
  c.other = f.commit("Note on main", { "NOTES.md": "notes\n" });
  c.merge = f.merge("neg", {}, "Merge branch 'neg'\n\nNegation for calc.");
  result = await mine();
}, 300_000);

afterAll(() => {
  f?.remove();
  root?.cleanup();
  cache?.cleanup();
});

function samples(): SweSample[] {
  return result.instances.map((m) => {
    const n = normalizeSweRecord(JSON.parse(JSON.stringify(instanceRecord(m))) as Record<string, unknown>);
    if (!n.ok) throw new Error(n.reason);
    return n.sample as SweSample;
  });
}

describe("mine --type swe on a Python library (pytest)", () => {
  it("puts every candidate in its bucket", () => {
    const reasonOf = (commit: string | undefined) => result.rejects.find((r) => r.commit === commit)?.reason;
    expect(result.instances.map((m) => m.commit)).toEqual([c.fix, c.merge]);
    expect(reasonOf(c.docs)).toBe("no_tests");
    expect(reasonOf(c.other)).toBe("no_tests");
    expect(reasonOf(c.negSource)).toBe("no_tests");
    expect(reasonOf(c.negTest)).toBe("no_source");
    expect(reasonOf(c.passing)).toBe("no_failing_test");
    expect(reasonOf(c.flaky)).toBe("flaky");
    expect(result.summary).toMatchObject({ candidates: 4, validated: 4, instances: 2, dropped: { no_tests: 3, no_source: 1, no_failing_test: 1, flaky: 1 } });
  });

  it("lays the fix out as SWE-bench does: parent, gold patch, test patch, fail-to-pass and pass-to-pass", () => {
    const fix = result.instances[0]?.sample.scenario;
    expect(fix).toMatchObject({
      instance_id: `acme__calc-${c.fix?.slice(0, 12)}`,
      repo: "acme/calc",
      base_commit: c.root,
      FAIL_TO_PASS: ["tests/test_calc.py::test_sub"],
      PASS_TO_PASS: ["tests/test_calc.py::test_add", "tests/test_calc.py::test_mul"],
      problem_statement: "Fix sub: it added its arguments\n\nsub(3, 1) gave 4.",
      hints_text: "",
      created_at: new Date(Number(f.git("show", "-s", "--format=%ct", c.fix as string)) * 1000).toISOString().replace(".000Z", "Z"),
    });
    expect(fix?.patch).toMatch(/^diff --git a\/calc\/__init__.py b\/calc\/__init__.py/);
    expect(fix?.patch).not.toContain("tests/");
    expect(fix?.test_patch).toMatch(/^diff --git a\/tests\/test_calc.py/);
    expect(fix?.version).toMatch(/^deps-[0-9a-f]{10}$/);
    expect(result.instances[0]?.problem_statement_source).toBe("commit");
    expect(instanceRecord(result.instances[0]!)).toMatchObject({ problem_statement_source: "commit", commit: c.fix });
  });

  it("takes a merged branch as one change against the merge's first parent, in the branch's own words", () => {
    const m = result.instances[1]?.sample.scenario;
    expect(m).toMatchObject({ base_commit: c.other, FAIL_TO_PASS: ["tests/test_neg.py::test_neg"], PASS_TO_PASS: [] });
    expect(m?.problem_statement).toBe("Merge branch 'neg'\n\nNegation for calc.\n\nAdd neg\n\nTest neg");
    expect(m?.patch).toContain("def neg(a):");
    expect(m?.test_patch).toContain("tests/test_neg.py");
  });

  it("gives instances that gitgood's own validation accepts: gold resolves, empty is no_op", async () => {
    const source = await Repo.open(f.dir);
    const opts = { cacheDir: cache.dir, testTimeoutSeconds: 120, setupTimeoutSeconds: 300 };
    for (const s of samples()) {
      expect(await validateInstance(source, s, opts)).toBeNull();
      expect((await evaluatePatch(source, s, s.scenario.patch, opts)).status).toBe("resolved");
      expect((await evaluatePatch(source, s, "", opts)).status).toBe("no_op");
    }
  }, 300_000);

  it("the flake gate is what drops the flaky change: with one run a side it would be kept", async () => {
    // --since/--until narrow the mining to the flaky change alone.
    const at = Number(f.git("show", "-s", "--format=%ct", c.flaky as string));
    const once = await mine(1, { since: at, until: at });
    expect(once.instances.map((m) => m.commit)).toEqual([c.flaky]);
    expect(once.summary).toMatchObject({ candidates: 1, dropped: { outside_dates: 7 } });
  }, 300_000);

  it("resumes: a second mining validates nothing again and gives the same instances", async () => {
    const again = await mine();
    expect(again.summary.reused).toBe(again.summary.validated);
    expect(again.summary.validation_seconds).toBe(0);
    expect(again.instances.map((m) => JSON.stringify(instanceRecord(m)))).toEqual(result.instances.map((m) => JSON.stringify(instanceRecord(m))));
  }, 300_000);

  it("leaves the source repository as it was", () => {
    expect(f.git("status", "--porcelain")).toBe("");
    expect(f.git("for-each-ref", "--format=%(refname)")).toBe("refs/heads/main\nrefs/heads/neg");
  });
});
