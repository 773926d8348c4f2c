import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveEnvSpec } from "../../src/testenv/defaults.js";
import { setupEnvironmentWithLlm } from "../../src/testenv/llm-setup.js";
import { isPassing } from "../../src/testenv/types.js";
import { outcomeOf } from "../../src/testenv/outcomes.js";
import { prepareEnvironment } from "../../src/testenv/prepare.js";
import { runTests } from "../../src/testenv/run-tests.js";
import { loadEnvSpecFile } from "../../src/testenv/spec-file.js";
import type { Environment } from "../../src/testenv/types.js";
import { GitGoodError } from "../../src/errors.js";
import { ScriptedModelClient } from "../../src/model/scripted.js";
import { projectSandbox, pythonProject, useCacheDir } from "../helpers/envs.js";
import { useSandboxRoot } from "../helpers/scenarios.js";

const target = { repo: "acme/calc", version: "1.0" };
/** The package needs a module that only the set-up provides (a stand-in for `pip install`). */
const NEEDS_VENDOR = { ...pythonProject(), "requirements.txt": "vendored-thing\n", "tests/test_vendor.py": "import vendored\n\n\ndef test_vendor():\n    assert vendored.VALUE == 42\n" };
const INSTALL = `echo 'VALUE = 42' > "$VIRTUAL_ENV/lib/$(python -c 'import sys; print("python%d.%d" % sys.version_info[:2])')/site-packages/vendored.py"`;

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let project: Awaited<ReturnType<typeof projectSandbox>>;

beforeAll(async () => {
  root = useSandboxRoot();
  cache = useCacheDir();
  project = await projectSandbox(NEEDS_VENDOR);
});

afterAll(() => {
  project?.cleanup();
  root.cleanup();
  cache.cleanup();
});

/** The caller's check: the vendored test passes. */
async function verify(env: Environment): Promise<boolean> {
  const run = await runTests(project.sandbox, env, ["tests/test_vendor.py"], { timeoutSeconds: 120 });
  return isPassing(outcomeOf(run, "tests/test_vendor.py::test_vendor"));
}

describe("setting up an environment with a model", () => {
  it("keeps the commands that worked, verifies the rebuilt environment, and saves a spec that rebuilds the same one", async () => {
    const model = new ScriptedModelClient([
      { tool_calls: [{ name: "read_file", arguments: { path: "requirements.txt", reason: "what it needs" } }] },
      { tool_calls: [{ name: "run_command", arguments: { command: "ls tests", keep: false, reason: "look" } }] },
      { tool_calls: [{ name: "run_command", arguments: { command: "test -d wheels || exit 7", keep: true, reason: "try the index" } }] },
      { tool_calls: [{ name: "run_command", arguments: { command: INSTALL, keep: true, reason: "install it" } }] },
      // The first finish comes too early: the check fails, and the model is told.
      { tool_calls: [{ name: "finish", arguments: { test_command: "python -m pytest -rA -x", reason: "done" } }] },
      { tool_calls: [{ name: "finish", arguments: { test_command: 'python -m pytest -rA --junitxml="$GITGOOD_JUNIT"', reason: "with JUnit" } }] },
    ]);
    let checks = 0;
    const saveSpecTo = path.join(cache.dir, "calc-env.yaml");
    const result = await setupEnvironmentWithLlm({
      sandbox: project.sandbox,
      target,
      model,
      cacheDir: cache.dir,
      saveSpecTo,
      verify: async (env) => (++checks === 1 ? false : verify(env)),
    });
    expect(checks).toBe(2);
    expect(result.steps).toBe(6);
    expect(result.spec.setup).toEqual([INSTALL]);
    expect(result.spec.test).toBe('python -m pytest -rA --junitxml="$GITGOOD_JUNIT"');
    // What the model saw: the configuration files first, then each tool's answer.
    const first = model.requests[0]?.messages[1];
    expect(first?.content).toMatch(/--- requirements\.txt ---\nvendored-thing/);
    const answers = (model.requests[5]?.messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);
    expect(answers[0]).toBe("vendored-thing\n");
    expect(answers[1]).toMatch(/^exit code 0\ntest_calc\.py/);
    expect(answers[2]).toMatch(/^exit code 7 \(not kept: it failed\)/);
    expect(answers[3]).toMatch(/^exit code 0 \(kept\)/);
    expect(answers[4]).toMatch(/does not pass the check/);

    // The saved spec rebuilds the same environment: prepare finds it in the cache.
    expect(readFileSync(saveSpecTo, "utf8")).toBe(result.yaml);
    const user = loadEnvSpecFile(saveSpecTo);
    const spec = resolveEnvSpec(target, project.sandbox.workDir, user);
    expect(spec.setup).toEqual([INSTALL]);
    const again = await prepareEnvironment({ sandbox: project.sandbox, target, spec, cacheDir: cache.dir, timeoutSeconds: 120 });
    expect(again.reused).toBe(true);
    expect(again.key).toBe(result.environment.key);
    expect(await verify(again)).toBe(true);
    // Nothing of the model's workspace is left.
    expect(readdirSync(path.join(cache.dir, "envs")).filter((n) => n.startsWith("."))).toEqual([]);
    expect(readFileSync(path.join(project.sandbox.workDir, "requirements.txt"), "utf8")).toBe("vendored-thing\n");
  }, 240_000);

  it("gives up after its step budget with ENV_BUILD_FAILED", async () => {
    const model = new ScriptedModelClient(["I think it is fine.", { tool_calls: [{ name: "run_command", arguments: { command: "true", keep: false, reason: "x" } }] }]);
    const err = await setupEnvironmentWithLlm({ sandbox: project.sandbox, target: { repo: "acme/calc", version: "2.0" }, model, cacheDir: cache.dir, maxSteps: 2, verify: () => Promise.resolve(true) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitGoodError);
    expect((err as GitGoodError).code).toBe("ENV_BUILD_FAILED");
    expect((err as GitGoodError).message).toBe("the model scripted did not set up a working environment for acme/calc within 2 steps");
  }, 120_000);
});
