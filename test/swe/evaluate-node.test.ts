import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SweSample } from "../../src/dataset/sample.js";
import { Repo } from "../../src/git/repo.js";
import { evaluatePatch } from "../../src/swe/evaluate.js";
import { useCacheDir } from "../helpers/envs.js";
import { Fixture } from "../helpers/fixture.js";
import { useSandboxRoot } from "../helpers/scenarios.js";

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let f: Fixture;
let sample: SweSample;

const LIB = "exports.double = (x) => x + x;\nexports.half = (x) => x * 2;\n";
// The test patch adds FAIL_TO_PASS "halves" to the file holding PASS_TO_PASS "doubles" (ids in node --test's names form).
const TESTS = 'const test = require("node:test");\nconst assert = require("node:assert");\nconst { double, half } = require("../lib/widget.js");\ntest("doubles", () => assert.equal(double(2), 4));\n';

beforeAll(() => {
  root = useSandboxRoot();
  cache = useCacheDir();
  f = new Fixture();
  const base = f.commit("widget", {
    "package.json": `${JSON.stringify({ name: "widget", version: "1.0.0", private: true, scripts: { test: "node --test" } }, null, 2)}\n`,
    "package-lock.json": `${JSON.stringify({ name: "widget", version: "1.0.0", lockfileVersion: 3, requires: true, packages: { "": { name: "widget", version: "1.0.0" } } }, null, 2)}\n`,
    "lib/widget.js": LIB,
    "test/widget.test.js": TESTS,
  });
  const fix = f.commit("Fix half", {
    "lib/widget.js": LIB.replace("x * 2", "x / 2"),
    "test/widget.test.js": `${TESTS}test("halves", () => assert.equal(half(4), 2));\n`,
  });
  sample = {
    id: "acme__widget-1",
    name: "acme/widget",
    default_branch: null,
    license: null,
    stargazers: null,
    created_at: null,
    topics: null,
    programming_language: "JavaScript",
    project_size: null,
    difficulty: "easy",
    sample_type: "swe",
    scenario: {
      instance_id: "acme__widget-1",
      repo: "acme/widget",
      base_commit: base,
      patch: `${f.git("diff", base, fix, "--", "lib")}\n`,
      test_patch: `${f.git("diff", base, fix, "--", "test")}\n`,
      problem_statement: "half(4) is 8",
      hints_text: "",
      created_at: null,
      version: "1.0",
      environment_setup_commit: null,
      FAIL_TO_PASS: ["halves"],
      PASS_TO_PASS: ["doubles"],
    },
  };
});

afterAll(() => {
  f?.remove();
  root.cleanup();
  cache.cleanup();
});

describe("evaluating a patch (Node, node --test)", () => {
  it("gold → resolved, empty → no_op", async () => {
    const source = await Repo.open(f.dir);
    const opts = { cacheDir: cache.dir, testTimeoutSeconds: 120, setupTimeoutSeconds: 300 };
    const gold = await evaluatePatch(source, sample, sample.scenario.patch, opts);
    expect(gold, JSON.stringify(gold.tests)).toMatchObject({ status: "resolved", fail_to_pass: { passed: 1, total: 1 }, pass_to_pass: { passed: 1, total: 1 } });
    const empty = await evaluatePatch(source, sample, "", opts);
    expect(empty).toMatchObject({ status: "no_op", fail_to_pass: { passed: 0, total: 1, failed: ["halves"] }, pass_to_pass: { passed: 1, total: 1 } });
  }, 120_000);

  it("a change that disarms the tests' assertions from the library under test is refused: not resolved, and listed in tampering", async () => {
    const source = await Repo.open(f.dir);
    const opts = { cacheDir: cache.dir, testTimeoutSeconds: 120, setupTimeoutSeconds: 300 };
    const patch = [
      "diff --git a/lib/widget.js b/lib/widget.js",
      "--- a/lib/widget.js",
      "+++ b/lib/widget.js",
      "@@ -1,2 +1,4 @@",
      " exports.double = (x) => x + x;",
      " exports.half = (x) => x * 2;",
      '+const check = require("node:assert");',
      "+check.equal = () => undefined;",
      "",
    ].join("\n");
    const r = await evaluatePatch(source, sample, patch, opts);
    expect(r.resolution).toBe("RESOLVED_NO");
    expect(r.fail_to_pass.passed).toBe(0);
    expect(r.tampering).toEqual(["lib/widget.js:4: replaces the tests' assertions"]);
  }, 120_000);

  /** A change to lib/widget.js that adds `lines` at its end. */
  function addedToLib(lines: readonly string[]): string {
    return [
      "diff --git a/lib/widget.js b/lib/widget.js",
      "--- a/lib/widget.js",
      "+++ b/lib/widget.js",
      `@@ -1,2 +1,${2 + lines.length} @@`,
      " exports.double = (x) => x + x;",
      " exports.half = (x) => x * 2;",
      ...lines.map((l) => `+${l}`),
      "",
    ].join("\n");
  }

  // At require time, in the test's own process: the runner's open report is unlinked and a file saying
  // every test passed takes its name, and a summary with no failure is printed. Names are built at run
  // time, past the static check.
  const FORGE = [
    'const fs = require("node:fs");',
    'const report = "jun" + "it.xml";',
    'for (const d of fs.readdirSync(".").filter((n) => n.startsWith(".gitgood-" + "results-"))) {',
    "  try { fs.unlinkSync(`${d}/${report}`); } catch { /* not there yet */ }",
    '  fs.writeFileSync(`${d}/${report}`, \'<testsuites><testcase name="doubles" classname="test"/><testcase name="halves" classname="test"/></testsuites>\');',
    "}",
    'console.log("ℹ tests 2\\nℹ pass 2\\nℹ fail 0");',
  ];

  it.each([
    ["the runner left to finish", FORGE, /the result files say no test failed, but the test runner exited with status 1/],
    ["the runner killed before it reports", [...FORGE, 'process.kill(process.ppid, "SIG" + "KILL");'], /the result files say no test failed, but the test runner exited with (a signal|status 137)/],
    // The test's process leaves with status 0 before any test runs: the runner counts the file as one passing test and exits 0.
    ["the tests' process leaving before they run", [...FORGE, "process.exit(0);"], /the result files have 2 passing test\(s\), but the test runner's summary counts 1/],
  ])("project code that forges the runner's JUnit file (%s) is caught by the runner's exit status or summary: not resolved, a finding", async (_, forge, finding) => {
    const source = await Repo.open(f.dir);
    const opts = { cacheDir: cache.dir, testTimeoutSeconds: 120, setupTimeoutSeconds: 300 };
    const r = await evaluatePatch(source, sample, addedToLib(forge), opts);
    expect(r.resolution).toBe("RESOLVED_NO");
    expect(r.fail_to_pass.passed).toBe(0);
    expect(r.tampering.join("\n")).toMatch(finding);
  }, 120_000);
});
