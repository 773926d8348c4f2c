import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { Sample } from "../../src/dataset/sample.js";
import { gitgood } from "../helpers/cli.js";
import { useCacheDir } from "../helpers/envs.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture } from "../helpers/runs.js";
import { useSandboxRoot } from "../helpers/scenarios.js";
import { pythonTask, type PythonTask } from "../helpers/swe.js";
import { runScript, startRepo } from "./harbor-scripts.js";

/*
 * The export's gate (src/export/harbor-check.ts): a task whose oracle does not score 1, or whose untouched
 * start is already solved, or whose environment lacks what its tests need, is reported and left out, and
 * written with --keep-failing. The broken tasks are real ones with one part replaced through the
 * families' hook: a test.sh that always writes the same reward.
 */

const broken: { testSh: string | null } = { testSh: null };

vi.mock("../../src/export/harbor-tasks.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/export/harbor-tasks.js")>();
  return {
    ...real,
    async harborParts(input: Parameters<typeof real.harborParts>[0]) {
      const parts = await real.harborParts(input);
      if (broken.testSh === null) return parts;
      return { ...parts, tests: { ...parts.tests, "test.sh": { data: broken.testSh, mode: 0o755 } } };
    },
  };
});

/** A test.sh that writes `value` whatever the repository holds. */
const always = (value: number): string => `#!/bin/bash\nmkdir -p "\${GITGOOD_TASK_LOGS:-/logs}/verifier"\necho ${value} > "\${GITGOOD_TASK_LOGS:-/logs}/verifier/reward.txt"\necho '{"reward": ${value}, "solved": ${value}}' > "\${GITGOOD_TASK_LOGS:-/logs}/verifier/reward.json"\n`;

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let scratch: string;
let fx: Fixture;
let merge: Sample;
let samples: string;
let swe: PythonTask;
let instances: string;

beforeAll(async () => {
  root = useSandboxRoot();
  cache = useCacheDir();
  scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-harbor-check-test-"));
  const built = await buildRunFixture();
  fx = built.fx;
  merge = built.samples.find((s) => s.sample_type === "merge" && s.difficulty === "medium")!;
  samples = path.join(scratch, "samples.jsonl");
  writeFileSync(samples, `${JSON.stringify(merge)}\n`);
  // tinydb's case: the project's pytest.ini asks for pytest-cov, which nothing installs.
  // test_unnamed.py is in no test list: a verifier that runs the whole suite instead of the named files shows it.
  swe = pythonTask({ "pytest.ini": "[pytest]\naddopts = --cov=calc\n", "tests/test_unnamed.py": "def test_unnamed():\n    pass\n" });
  instances = path.join(scratch, "instances.json");
  writeFileSync(instances, JSON.stringify([swe.sample().scenario]));
}, 120_000);

beforeEach(() => {
  broken.testSh = null;
});

afterAll(() => {
  fx?.remove();
  swe?.fixture.remove();
  root?.cleanup();
  cache?.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

const exportTo = (out: string, ...more: string[]) => gitgood(["export", "harbor", samples, out, "--repo", fx.dir, ...more]);
const metadata = (task: string): string => readFileSync(path.join(task, "task.toml"), "utf8");

describe("export harbor --check: a task that fails the gate is reported and left out", () => {
  it("an oracle that scores 0 (a test.sh that always writes 0)", async () => {
    broken.testSh = always(0);
    const out = path.join(scratch, "zero");
    const r = await exportTo(out);
    expect(r.stderr).toContain(`${merge.id} MCR: fails the check: the oracle (solution/solve.sh) scores 0 (solved 0), not 1`);
    expect(r.stderr).toMatch(/0 Harbor task\(s\) written under .*; 1 left out for failing the check \(--keep-failing writes them\)/);
    expect(r.code).not.toBe(0);
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  });

  it("an untouched start that is already solved (a test.sh that always writes 1)", async () => {
    broken.testSh = always(1);
    const r = await exportTo(path.join(scratch, "one"));
    expect(r.stderr).toContain(`${merge.id} MCR: fails the check: the untouched start scores 1 (solved 1): a task solved before anyone works on it`);
    expect(r.code).not.toBe(0);
  });

  it("--keep-failing writes it, and task.toml says why it failed; --no-check writes it unchecked", async () => {
    broken.testSh = always(0);
    const out = path.join(scratch, "kept");
    const r = await exportTo(out, "--keep-failing");
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("(kept although it fails the check)");
    expect(metadata(path.join(out, `${merge.id}-mcr`))).toMatch(/gitgood_check = "FAILED in gitgood's jail \(namespace\) with git alone: the oracle \(solution\/solve.sh\) scores 0/);
    const unchecked = path.join(scratch, "unchecked");
    const u = await exportTo(unchecked, "--no-check");
    expect(u.code).toBe(0);
    expect(u.stderr).toContain(`wrote ${path.join(unchecked, `${merge.id}-mcr`)}\n`);
    expect(metadata(path.join(unchecked, `${merge.id}-mcr`))).not.toContain("gitgood_check");
  });

  it("a SWE task whose environment lacks a plug-in its pytest.ini needs fails; --env-spec that fixes the environment passes, and the Dockerfile has the fix", async () => {
    const env = { GITGOOD_CACHE_DIR: cache.dir };
    const out = path.join(scratch, "swe");
    const r = await gitgood(["export", "harbor", instances, out, "--repo", swe.fixture.dir], { env });
    expect(r.stderr).toMatch(/acme__calc-1 SWE: fails the check: the oracle \(solution\/solve.sh\) scores 0 \(solved 0\), not 1/);
    expect(r.code).not.toBe(0);
    const spec = path.join(scratch, "specs.yaml");
    writeFileSync(spec, "envs:\n  acme/calc:\n    setup: ['echo set-up from the spec']\n    env:\n      PYTEST_ADDOPTS: '-o addopts='\n");
    const fixed = await gitgood(["export", "harbor", instances, out, "--repo", swe.fixture.dir, "--env-spec", spec], { env });
    expect(fixed.stderr).toContain("(checked: the oracle scores 1, the untouched start 0)");
    expect(fixed.code).toBe(0);
    const dockerfile = readFileSync(path.join(out, "acme__calc-1-swe", "environment", "Dockerfile"), "utf8");
    expect(dockerfile).toContain('ENV PYTEST_ADDOPTS="-o addopts="\n');
    expect(dockerfile).toContain('RUN ["sh","-c","echo set-up from the spec"]\n');
    expect(dockerfile).toContain('RUN ["sh","-c","if [ -f pyproject.toml ] || [ -f setup.py ]; then python -m pip install -e . || python -m pip install --no-build-isolation -e . ; fi"]\n');
    expect(dockerfile).not.toContain("--no-deps");
  }, 180_000);

  it("a SWE task runs the environment's own test command: an --env-spec whose test command overrides addopts passes the check", async () => {
    const env = { GITGOOD_CACHE_DIR: cache.dir };
    const out = path.join(scratch, "swe-test-command");
    const spec = path.join(scratch, "test-command.yaml");
    writeFileSync(spec, 'envs:\n  acme/calc:\n    "*":\n      test: python -m pytest -rA -p no:cacheprovider -o addopts= --junitxml="$GITGOOD_JUNIT"\n');
    const r = await gitgood(["export", "harbor", instances, out, "--repo", swe.fixture.dir, "--env-spec", spec], { env });
    expect(r.stderr).toContain("(checked: the oracle scores 1, the untouched start 0)");
    expect(r.code).toBe(0);
    const task = path.join(out, "acme__calc-1-swe");
    expect(readFileSync(path.join(task, "tests", "test-command"), "utf8")).toContain("-o addopts=");
    // As Harbor runs it: the gold patch, then the verifier, which runs the named test files only.
    const repo = startRepo(task, scratch);
    runScript(task, "solution/solve.sh", repo, scratch);
    const verified = runScript(task, "tests/test.sh", repo, scratch);
    expect(verified.reward).toBe("1\n");
    const log = readFileSync(path.join(verified.logs, "verifier", "pytest.log"), "utf8");
    expect(log).toContain("PASSED tests/test_sub.py::test_sub");
    expect(log).not.toContain("test_unnamed");
  }, 180_000);

  it("refuses an --env-spec file that does not exist, in one line", async () => {
    const r = await gitgood(["export", "harbor", instances, path.join(scratch, "none"), "--repo", swe.fixture.dir, "--env-spec", path.join(scratch, "missing.yaml")]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("--env-spec");
  });
});
