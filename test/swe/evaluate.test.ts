import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Repo } from "../../src/git/repo.js";
import { evaluatePatch } from "../../src/swe/evaluate.js";
import type { SweOptions } from "../../src/swe/options.js";
import { validateInstance } from "../../src/swe/validate.js";
import { countGitProcesses } from "../helpers/git-count.js";
import { pythonTaskSetup, type PythonTaskSetup } from "../helpers/python-task.js";
import { CALC_BASE, F2P, P2P, calcPatch, type PythonTask } from "../helpers/swe.js";

let setup: PythonTaskSetup;
let cache: PythonTaskSetup["cache"];
let task: PythonTask;
let source: Repo;
let opts: SweOptions;

beforeAll(async () => {
  setup = await pythonTaskSetup();
  ({ cache, task, source, opts } = setup);
}, 60_000);

afterAll(() => setup?.remove());

const fixed = CALC_BASE.replace("def sub(a, b):\n    return a + b", "def sub(a, b):\n    return a - b");

describe("evaluating a patch (Python, pytest)", () => {
  it("gold → resolved, by plain git apply, FAIL_TO_PASS and PASS_TO_PASS all passing", async () => {
    const r = await evaluatePatch(source, task.sample(), task.gold, opts);
    expect(r).toMatchObject({
      status: "resolved",
      resolution: "RESOLVED_FULL",
      apply_strategy: "git apply",
      fail_to_pass: { passed: 2, total: 2, failed: [] },
      pass_to_pass: { passed: 2, total: 2, failed: [] },
      patch: task.gold,
    });
    expect(r.tests?.argv.join(" ")).toContain("tests/test_sub.py");
  }, 120_000);

  it("a warm evaluation starts four git processes (its base's pack comes from the process's cache; the new test file needs no reset) and the test command without a shell", async () => {
    const { result: r, commands } = await countGitProcesses(() => evaluatePatch(source, task.sample(), task.gold, opts));
    expect(r.status).toBe("resolved");
    expect(commands.map((c) => c.split(" ")[0])).toEqual(["checkout", "apply", "status", "apply"]);
    expect(r.tests?.argv[0]).toBe("python");
  }, 120_000);

  it("empty → no_op (nothing applied; the tests still run on the untouched tree)", async () => {
    const r = await evaluatePatch(source, task.sample(), "", opts);
    expect(r).toMatchObject({ status: "no_op", resolution: "RESOLVED_NO", apply_strategy: null });
    expect(r.fail_to_pass).toEqual({ passed: 0, total: 2, failed: F2P });
    expect(r.pass_to_pass).toEqual({ passed: 2, total: 2, failed: [] });
  }, 120_000);

  it("a fix that breaks another test → breaking_resolved", async () => {
    const patch = calcPatch(task, fixed.replace("def add(a, b):\n    return a + b", "def add(a, b):\n    return a * b"));
    const r = await evaluatePatch(source, task.sample(), patch, opts);
    expect(r).toMatchObject({ status: "breaking_resolved", resolution: "RESOLVED_NO", pass_to_pass: { passed: 1, total: 2, failed: [P2P[0]] } });
  }, 120_000);

  it("half a fix → partially_resolved", async () => {
    const patch = calcPatch(task, CALC_BASE.replace("def sub(a, b):\n    return a + b", "def sub(a, b):\n    return abs(a - b)"));
    const r = await evaluatePatch(source, task.sample(), patch, opts);
    expect(r).toMatchObject({ status: "partially_resolved", resolution: "RESOLVED_PARTIAL", fail_to_pass: { passed: 1, total: 2, failed: [F2P[1]] } });
  }, 120_000);

  it("a patch with whitespace damage in its context is applied by the second strategy", async () => {
    const damaged = task.gold.replace(" def mul(a, b):", " def mul(a,   b):");
    expect(damaged).not.toBe(task.gold);
    const r = await evaluatePatch(source, task.sample(), damaged, opts);
    expect(r).toMatchObject({ status: "resolved", apply_strategy: "git apply --ignore-whitespace" });
  }, 120_000);

  it("a patch whose context changed (no blob ids) is applied only by patch --fuzz=3", async () => {
    const fuzzy = task.gold
      .replace(/^index .*\n/m, "")
      .replace(" def add(a, b):", " def add(x, y):")
      .replace(" def mul(a, b):", " def mul(x, y):");
    const r = await evaluatePatch(source, task.sample(), fuzzy, opts);
    expect(r).toMatchObject({ status: "resolved", apply_strategy: "patch -p1 --fuzz=3" });
  }, 120_000);

  it("a malformed patch → no_op", async () => {
    const r = await evaluatePatch(source, task.sample(), "I changed sub to subtract.\n--- a/x\n", opts);
    expect(r).toMatchObject({ status: "no_op", apply_strategy: null });
  }, 120_000);

  it("an empty PASS_TO_PASS counts as all passed", async () => {
    const r = await evaluatePatch(source, task.sample({ PASS_TO_PASS: [] }), task.gold, opts);
    expect(r).toMatchObject({ status: "resolved", resolution: "RESOLVED_FULL", pass_to_pass: { passed: 0, total: 0, failed: [] } });
  }, 120_000);

  it("a hanging test run is killed: its tests are missing, so they failed", async () => {
    const hang = `${task.testPatch}diff --git a/tests/test_hang.py b/tests/test_hang.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_hang.py\n@@ -0,0 +1,5 @@\n+import time\n+\n+\n+def test_hang():\n+    time.sleep(600)\n`;
    const r = await evaluatePatch(source, task.sample({ test_patch: hang }), task.gold, { ...opts, testTimeoutSeconds: 5 });
    expect(r.tests?.timed_out).toBe(true);
    expect(r.fail_to_pass).toEqual({ passed: 0, total: 2, failed: F2P });
    expect(r.status).toBe("regression");
  }, 120_000);

  it("an instance whose FAIL_TO_PASS already passes at base_commit is invalid (and the verdict is cached)", async () => {
    const bad = task.sample({ FAIL_TO_PASS: [...F2P, P2P[0] as string] }, "acme__calc-2");
    const v = await validateInstance(source, bad, opts);
    expect(v?.reason).toMatch(/FAIL_TO_PASS test\(s\) already pass at base_commit with test_patch: tests\/test_calc.py::test_add/);
    expect(await validateInstance(source, task.sample(), opts)).toBeNull();
    const cached = readdirSync(path.join(cache.dir, "swe-validation")).sort();
    expect(cached).toEqual([expect.stringMatching(/^acme__calc-1-[0-9a-f]{16}\.json$/), expect.stringMatching(/^acme__calc-2-[0-9a-f]{16}\.json$/)]);
    // A cached verdict is the answer next time: the same reason, without evaluating again.
    const again = await validateInstance(source, bad, { ...opts, envSpecFile: undefined });
    expect(again).toEqual(v);
  }, 120_000);
});
