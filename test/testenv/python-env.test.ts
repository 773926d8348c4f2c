import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveEnvSpec } from "../../src/testenv/defaults.js";
import { prepareEnvironment } from "../../src/testenv/prepare.js";
import { runTests } from "../../src/testenv/run-tests.js";
import { outcomeOf } from "../../src/testenv/outcomes.js";
import type { EnvSpec, Environment } from "../../src/testenv/types.js";
import { bwrapUnavailable } from "../../src/sandbox/isolation.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { projectSandbox, pythonProject, useCacheDir } from "../helpers/envs.js";
import { processesWith, sleepMarker } from "../helpers/processes.js";
import { useSandboxRoot } from "../helpers/scenarios.js";

const noBwrap = bwrapUnavailable();
const target = { repo: "acme/calc", version: "1.0" };

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let outside: string;
let project: Awaited<ReturnType<typeof projectSandbox>>;
let sandbox: Sandbox;
let spec: EnvSpec;
let env: Environment;
const setupLog: string[] = [];

beforeAll(async () => {
  root = useSandboxRoot();
  cache = useCacheDir();
  outside = mkdtempSync(path.join(os.tmpdir(), "gitgood-env-canary-"));
  writeFileSync(path.join(outside, "canary.txt"), "untouched\n");
  const hostile = [
    "import os, pathlib",
    "",
    "def test_escape():",
    `    pathlib.Path(${JSON.stringify(path.join(outside, "canary.txt"))}).write_text("pwned")`,
    "",
    "def test_write_env():",
    '    pathlib.Path(os.environ["VIRTUAL_ENV"], "pwned").write_text("pwned")',
    "",
  ].join("\n");
  project = await projectSandbox({ ...pythonProject(), "tests/test_hostile.py": hostile, "tests/test_hang.py": "import time\n\ndef test_hang():\n    time.sleep(float(__import__('os').environ['HANG']))\n" });
  sandbox = project.sandbox;
  spec = {
    ...resolveEnvSpec(target, sandbox.workDir),
    setup: ['echo built >> "$GITGOOD_ENV/setup-runs"', 'command -v pip > "$GITGOOD_ENV/which-pip" && pip --version >> "$GITGOOD_ENV/which-pip"'],
  };
  env = await prepareEnvironment({ sandbox, target, spec, cacheDir: cache.dir, timeoutSeconds: 300, onLog: (l) => setupLog.push(l) });
}, 120_000);

afterAll(() => {
  project?.cleanup();
  root.cleanup();
  cache.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

describe("a Python environment", () => {
  it("is built by default as a virtual environment that sees the system's site-packages, with pytest from the project's root", () => {
    expect(spec).toMatchObject({ kind: "python", testArgs: "paths", ids: "pytest", log: "pytest", editable: false });
    expect(env.reused).toBe(false);
    expect(env.dir.startsWith(path.join(cache.dir, "envs"))).toBe(true);
    expect(readFileSync(path.join(env.envDir, "venv", "pyvenv.cfg"), "utf8")).toMatch(/include-system-site-packages = true/);
    expect(setupLog).toContain('$ echo built >> "$GITGOOD_ENV/setup-runs"');
    // `pip` in a set-up is the environment's (the system's pip run by its python), never the system's own.
    expect(readFileSync(path.join(env.envDir, "which-pip"), "utf8")).toMatch(/\/env\/venv\/bin\/pip\npip \d/);
    // The build directory was renamed into place: no temporary directory or lock is left.
    expect(readdirSync(path.join(cache.dir, "envs"))).toEqual([env.key]);
  });

  it("runs the tests of the files named, isolated, with every outcome in the dataset's id form", async () => {
    const run = await runTests(sandbox, env, ["tests/test_calc.py", "tests/unit/test_more.py"], { timeoutSeconds: 120 });
    expect(run.timedOut).toBe(false);
    expect(run.exitCode).toBe(1);
    expect(Object.fromEntries(run.outcomes)).toEqual({
      "tests/test_calc.py::TestCalc::test_mul[2-4]": "passed",
      "tests/test_calc.py::TestCalc::test_mul[3-7]": "failed",
      "tests/test_calc.py::test_add": "passed",
      "tests/test_calc.py::test_div": "error",
      "tests/test_calc.py::test_known": "xfail",
      "tests/test_calc.py::test_later": "skipped",
      "tests/test_calc.py::test_lucky": "xpass",
      "tests/test_calc.py::test_sub": "failed",
      "tests/unit/test_more.py::test_more": "passed",
    });
    expect(outcomeOf(run, "tests/test_hostile.py::test_escape")).toBeUndefined();
    // The results directory is gone, and nothing else was written into the work tree.
    expect(project.fixture.gitIn(sandbox.workDir, "status", "--porcelain", "--ignored")).toBe("");
  }, 120_000);

  it("is reused from the cache: a second prepare runs no set-up", async () => {
    const lines: string[] = [];
    const again = await prepareEnvironment({ sandbox, target, spec: { ...spec, test: `${spec.test} -x` }, cacheDir: cache.dir, timeoutSeconds: 300, onLog: (l) => lines.push(l) });
    expect(again.reused).toBe(true);
    expect(again.key).toBe(env.key);
    expect(lines).toEqual([]);
    expect(readFileSync(path.join(env.envDir, "setup-runs"), "utf8")).toBe("built\n");
  }, 120_000);

  it.skipIf(noBwrap)("under the default isolation sees the interpreter's installation, and cannot write outside the work tree or into the environment", async () => {
    expect(sandbox.isolation.mode).toBe("namespace");
    const run = await runTests(sandbox, env, ["tests/test_hostile.py"], { timeoutSeconds: 120 });
    expect(Object.fromEntries(run.outcomes)).toEqual({
      "tests/test_hostile.py::test_escape": "failed",
      "tests/test_hostile.py::test_write_env": "failed",
    });
    expect(run.log).toMatch(/Read-only file system/);
    expect(readFileSync(path.join(outside, "canary.txt"), "utf8")).toBe("untouched\n");
    expect(existsSync(path.join(env.envDir, "venv", "pwned"))).toBe(false);
  }, 120_000);

  it("kills a hanging run with its process group: timedOut, every test missing", async () => {
    const marker = sleepMarker();
    const hang = { ...env, spec: { ...env.spec, env: { HANG: marker } } };
    const run = await runTests(sandbox, hang, ["tests/test_hang.py"], { timeoutSeconds: 3 });
    expect(run.timedOut).toBe(true);
    expect(run.outcomes.size).toBe(0);
    expect(outcomeOf(run, "tests/test_hang.py::test_hang")).toBeUndefined();
    expect(processesWith(marker)).toEqual([]);
  }, 120_000);
});
