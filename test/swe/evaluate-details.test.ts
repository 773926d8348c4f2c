import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isGitGoodError } from "../../src/errors.js";
import { Repo } from "../../src/git/repo.js";
import { sweScorer } from "../../src/scenarios/swe/scorer.js";
import { evaluatePatch } from "../../src/swe/evaluate.js";
import type { SweOptions } from "../../src/swe/options.js";
import { validateInstance } from "../../src/swe/validate.js";
import { pythonTaskSetup, type PythonTaskSetup } from "../helpers/python-task.js";
import { F2P, P2P, addedFiles, type PythonTask } from "../helpers/swe.js";

let setup: PythonTaskSetup;
let task: PythonTask;
let source: Repo;
let opts: SweOptions;

beforeAll(async () => {
  setup = await pythonTaskSetup();
  ({ task, source, opts } = setup);
}, 60_000);

afterAll(() => setup?.remove());

describe("what a SWE evaluation records", () => {
  it("the evaluated patch, the apply strategy, F2P/P2P with pass and fail (as report.json), the log tail and each phase's time", async () => {
    const r = await evaluatePatch(source, task.sample(), task.gold, opts);
    expect(r).toMatchObject({
      status: "resolved",
      apply_strategy: "git apply",
      patch_applied: true,
      patch: task.gold,
      tests_status: { FAIL_TO_PASS: { success: F2P, failure: [] }, PASS_TO_PASS: { success: P2P, failure: [] } },
      log_invalid: null,
    });
    expect(r.tests?.log_tail).toMatch(/PASSED tests\/test_sub.py::test_sub/);
    for (const phase of ["environment_s", "apply_s", "tests_s"] as const) expect(r.timings[phase]).toBeGreaterThanOrEqual(0);
    expect(r.timings.tests_s).toBeGreaterThan(0);
  }, 120_000);

  it("a patch given as text is evaluated and recorded with the set-up and agent times of the attempt", async () => {
    const final = { done: true, patch: "", encoding: "utf8" as const, answer: `Here is the fix:\n\`\`\`diff\n${task.gold}\`\`\`\n`, invalid: null, timings: { setup_s: 1.5, agent_s: 2 } };
    const s = await sweScorer.score(task.sample(), final, { source, judges: [], settings: { swe: opts } });
    expect(s?.solved).toBe(true);
    expect(s?.value).toMatchObject({ patch: task.gold, patch_source: "fence", timings: { setup_s: 1.5, agent_s: 2 } });
  }, 120_000);

  it("a patch with a path outside the repository is the agent's unapplicable patch, not a system error", async () => {
    for (const bad of [addedFiles({ "../outside.py": "x = 1\n" }), task.gold.replaceAll("a/calc/__init__.py", "a/../calc/__init__.py").replaceAll("b/calc/__init__.py", "b/../calc/__init__.py")]) {
      const r = await evaluatePatch(source, task.sample(), bad, opts);
      expect(r.error).toBeUndefined();
      expect(r).toMatchObject({ status: "no_op", resolution: "RESOLVED_NO", patch_applied: false, apply_strategy: null });
    }
  }, 120_000);

  it("a patch that only touches the evaluation's files changes nothing: no_op, never resolved, even with no FAIL_TO_PASS test", async () => {
    const r = await evaluatePatch(source, task.sample({ FAIL_TO_PASS: [] }), addedFiles({ "conftest.py": "X = 1\n" }), opts);
    expect(r).toMatchObject({ status: "no_op", resolution: "RESOLVED_NO", patch_applied: false, tampered: ["conftest.py"], patch: "" });
    const empty = await evaluatePatch(source, task.sample({ FAIL_TO_PASS: [] }), "", opts);
    expect(empty).toMatchObject({ status: "no_op", resolution: "RESOLVED_NO" });
  }, 120_000);

  it("a failing environment set-up is the run's infrastructure error, naming the command and its last lines", async () => {
    const spec = path.join(task.fixture.scratch("spec"), "envs.yaml");
    writeFileSync(spec, "acme/calc:\n  setup:\n    - 'echo fetching wheels; echo no matching distribution for calc-deps >&2; exit 3'\n");
    const err = await validateInstance(source, task.sample({}, "acme__calc-9"), { ...opts, envSpecFile: spec }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isGitGoodError(err)).toBe(true);
    if (!isGitGoodError(err)) return;
    expect(err.code).toBe("ENV_BUILD_FAILED");
    expect(err.message).toMatch(/acme__calc-9: environment set-up for acme\/calc: 'echo fetching wheels.*exit 3' exited with code 3/);
    expect(err.message).toContain("no matching distribution for calc-deps");
    expect(err.data).toMatchObject({ command: expect.stringContaining("exit 3"), log_tail: expect.stringContaining("fetching wheels") });
  }, 120_000);
});
