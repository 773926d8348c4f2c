import { existsSync, lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveEnvSpec } from "../../src/testenv/defaults.js";
import { prepareEnvironment } from "../../src/testenv/prepare.js";
import { runTests } from "../../src/testenv/run-tests.js";
import type { EnvSpec, Environment } from "../../src/testenv/types.js";
import { bwrapUnavailable } from "../../src/sandbox/isolation.js";
import { nodeProject, projectSandbox, useCacheDir } from "../helpers/envs.js";
import { useSandboxRoot } from "../helpers/scenarios.js";

const noBwrap = bwrapUnavailable();
const target = { repo: "acme/widget", version: null };

/** Tests that use a module installed in the environment, and one that tries to change it. */
const USES_HELPER = [
  'const test = require("node:test");',
  'const assert = require("node:assert");',
  'const fs = require("node:fs");',
  'test("helper", () => assert.equal(require("helper").twice(2), 4));',
  'test("writes modules", () => fs.writeFileSync(require.resolve("helper"), "module.exports = {};"));',
  // As Vite does with its bundled config (node_modules/.vite-temp): a file beside the packages.
  'test("writes beside modules", () => { fs.mkdirSync("node_modules/.vite-temp", { recursive: true }); fs.writeFileSync("node_modules/.vite-temp/config.mjs", "x"); });',
  "",
].join("\n");

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let project: Awaited<ReturnType<typeof projectSandbox>>;
let spec: EnvSpec;
let env: Environment;

beforeAll(async () => {
  root = useSandboxRoot();
  cache = useCacheDir();
  project = await projectSandbox({ ...nodeProject(), "test/helper.test.js": USES_HELPER });
  const detected = resolveEnvSpec(target, project.sandbox.workDir);
  spec = {
    ...detected,
    setup: [...detected.setup, "mkdir -p node_modules/helper && echo 'exports.twice = (n) => 2 * n;' > node_modules/helper/index.js"],
  };
  env = await prepareEnvironment({ sandbox: project.sandbox, target, spec, cacheDir: cache.dir, timeoutSeconds: 300 });
}, 120_000);

afterAll(() => {
  project?.cleanup();
  root.cleanup();
  cache.cleanup();
});

describe("a Node environment", () => {
  it("is detected from package.json: npm ci for a lockfile, node --test with its JUnit reporter", () => {
    expect(spec).toMatchObject({ kind: "node", ids: "names", testArgs: "paths" });
    expect(spec.setup[0]).toBe("npm ci --no-audit --no-fund");
    expect(spec.test).toMatch(/^node --test --test-reporter=junit/);
    expect(existsSync(path.join(env.envDir, "node_modules", "helper", "index.js"))).toBe(true);
  });

  it("runs node --test with the cached node_modules at the work tree's node_modules, removed again after the run", async () => {
    const run = await runTests(project.sandbox, env, ["test/widget.test.js", "test/helper.test.js"], { timeoutSeconds: 120 });
    expect(run.timedOut).toBe(false);
    expect(run.outcomes.get("counts")).toBe("passed");
    expect(run.outcomes.get("breaks")).toBe("failed");
    expect(run.outcomes.get("later")).toBe("skipped");
    expect(run.outcomes.get("sizes > empty")).toBe("passed");
    expect(run.outcomes.get("helper")).toBe("passed");
    expect(run.outcomes.get("writes beside modules")).toBe("passed");
    expect(existsSync(path.join(env.envDir, "node_modules", ".vite-temp"))).toBe(false);
    expect(() => lstatSync(path.join(project.sandbox.workDir, "node_modules"))).toThrow();
    expect(project.fixture.gitIn(project.sandbox.workDir, "status", "--porcelain", "--ignored")).toBe("");
  }, 120_000);

  it.skipIf(noBwrap)("shows node_modules read-only: a test that writes into it fails and the cache is unchanged", async () => {
    const run = await runTests(project.sandbox, env, ["test/helper.test.js"], { timeoutSeconds: 120 });
    expect(run.outcomes.get("writes modules")).toBe("failed");
    expect(run.log).toMatch(/EROFS|read-only file system/i);
    expect(readFileSync(path.join(env.envDir, "node_modules", "helper", "index.js"), "utf8")).toMatch(/twice/);
  }, 120_000);
});
