import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveEnvSpec } from "../../src/testenv/defaults.js";
import { prepareEnvironment } from "../../src/testenv/prepare.js";
import { runTests } from "../../src/testenv/run-tests.js";
import type { Environment } from "../../src/testenv/types.js";
import { projectSandbox, useCacheDir } from "../helpers/envs.js";
import { useSandboxRoot } from "../helpers/scenarios.js";

/**
 * A vitest project's results come from the JUnit file its run writes in the work tree, where the code under
 * test can write too: runTests on a library that, at import in the test's own process, hides the runner's
 * report and puts a file saying every test passed beside it. `half` is wrong, so "halves" fails unless the
 * run is forged. The runner's exit status and summary are what the forgery can not reach.
 */

const VITEST = path.resolve("node_modules", "vitest");
const target = { repo: "acme/halves", version: null };

const TESTS = ['import { expect, test } from "vitest";', 'import { double, half } from "../lib/widget.js";', 'test("doubles", () => expect(double(2)).toBe(4));', 'test("halves", () => expect(half(4)).toBe(2));', ""].join("\n");

const HONEST = "export const double = (x) => x + x;\nexport const half = (x) => x / 2;\n";

const FORGED = [
  "export const double = (x) => x + x;",
  "export const half = (x) => x * 2;",
  'import * as fs from "node:fs";',
  'for (const d of fs.readdirSync(".").filter((n) => n.startsWith(".gitgood-" + "results-"))) {',
  '  const report = `${d}/jun` + "it.xml";',
  "  fs.rmSync(report, { force: true });",
  "  fs.mkdirSync(report);",
  '  fs.writeFileSync(`${d}/forged.xml`, \'<testsuites><testsuite name="test/widget.test.js"><testcase name="doubles" classname="test/widget.test.js"/><testcase name="halves" classname="test/widget.test.js"/></testsuite></testsuites>\');',
  "}",
  "",
].join("\n");

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
const projects: Array<{ cleanup: () => void }> = [];

beforeAll(() => {
  root = useSandboxRoot();
  cache = useCacheDir();
});

afterAll(() => {
  for (const p of projects) p.cleanup();
  root.cleanup();
  cache.cleanup();
});

/** runTests on the vitest project with `lib` as its library, vitest linked from gitgood's own node_modules. */
async function run(lib: string): Promise<Awaited<ReturnType<typeof runTests>>> {
  const project = await projectSandbox({
    "package.json": `${JSON.stringify({ name: "halves", version: "1.0.0", private: true, type: "module", scripts: { test: "vitest run" } }, null, 2)}\n`,
    "lib/widget.js": lib,
    "test/widget.test.js": TESTS,
  });
  projects.push(project);
  const detected = resolveEnvSpec(target, project.sandbox.workDir);
  const spec = { ...detected, setup: [`mkdir -p node_modules/.bin && ln -s ${VITEST} node_modules/vitest && ln -s ../vitest/vitest.mjs node_modules/.bin/vitest`] };
  const env: Environment = await prepareEnvironment({ sandbox: project.sandbox, target, spec, cacheDir: cache.dir, timeoutSeconds: 300 });
  return runTests(project.sandbox, env, ["test/widget.test.js"], { timeoutSeconds: 120 });
}

describe("a vitest run's JUnit file forged by the code under test", () => {
  it("an honest library: both tests pass, nothing found", async () => {
    const r = await run(HONEST);
    expect(r.tampering).toEqual([]);
    expect(Object.fromEntries(r.outcomes)).toEqual({ doubles: "passed", halves: "passed" });
  }, 120_000);

  it("the runner's report made a directory and a file of passes put beside it: no outcome, a finding", async () => {
    const r = await run(FORGED);
    expect(r.tampering.length, r.log).toBeGreaterThan(0);
    expect(r.tampering.join("\n")).toMatch(/the test runner exited with status 1|summary counts 1 failing/);
    expect(r.outcomes.size).toBe(0);
  }, 120_000);
});
