import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SweSample } from "../../src/dataset/sample.js";
import { Repo } from "../../src/git/repo.js";
import { mineSwe, type SweMineResult } from "../../src/swe/mine/mine.js";
import { evaluatePatch } from "../../src/swe/evaluate.js";
import { useCacheDir } from "../helpers/envs.js";
import { Fixture } from "../helpers/fixture.js";
import { useSandboxRoot } from "../helpers/scenarios.js";

/*
 * A Node library tested with node's own runner (`node --test`, which src/envs runs with JUnit output):
 * a bug fix with its test, a change without tests, a change whose new test passes before, and a
 * feature whose only test alternates on a counter file it keeps in the work tree.
 */

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let f: Fixture;
const c: Record<string, string> = {};
let result: SweMineResult;

const LIB = "exports.double = (x) => x + x;\nexports.half = (x) => x * 2;\n";
const HEAD = 'const test = require("node:test");\nconst assert = require("node:assert");\n';
const TESTS = `${HEAD}const { double, half } = require("../lib/widget.js");\ntest("doubles", () => assert.equal(double(2), 4));\n`;
const FLAKY = [
  HEAD,
  'const fs = require("node:fs");',
  'const path = require("node:path");',
  'const counter = path.join(__dirname, "..", ".runs");',
  'test("triples sometimes", () => {',
  '  const n = fs.existsSync(counter) ? Number(fs.readFileSync(counter, "utf8")) + 1 : 1;',
  "  fs.writeFileSync(counter, String(n));",
  '  const { triple } = require("../lib/widget.js");',
  "  assert.ok(n % 2 === 0 && triple(2) === 6);",
  "});",
  "",
].join("\n");

beforeAll(async () => {
  root = useSandboxRoot();
  cache = useCacheDir();
  f = new Fixture();
  c.root = f.commit("widget", {
    "package.json": `${JSON.stringify({ name: "widget", version: "1.0.0", private: true, scripts: { test: "node --test" } }, null, 2)}\n`,
    "package-lock.json": `${JSON.stringify({ name: "widget", version: "1.0.0", lockfileVersion: 3, requires: true, packages: { "": { name: "widget", version: "1.0.0" } } }, null, 2)}\n`,
    "lib/widget.js": LIB,
    "test/widget.test.js": TESTS,
    ".gitignore": ".runs\n",
  });
  const fixed = LIB.replace("x * 2", "x / 2");
  c.fix = f.commit("Fix half: it doubled", { "lib/widget.js": fixed, "test/widget.test.js": `${TESTS}test("halves", () => assert.equal(half(4), 2));\n` });
  c.docs = f.commit("Describe widget", { "README.md": "widget\n", "lib/widget.js": `// Widgets.\n${fixed}` });
  c.passing = f.commit("Tidy double, test zero", {
    "lib/widget.js": `// Widgets.\n${fixed.replace("x + x", "2 * x")}`,
    "test/zero.test.js": `${HEAD}const { double } = require("../lib/widget.js");\ntest("doubles zero", () => assert.equal(double(0), 0));\n`,
  });
  c.flaky = f.commit("Add triple", { "lib/widget.js": `// Widgets.\n${fixed.replace("x + x", "2 * x")}exports.triple = (x) => 3 * x;\n`, "test/triple.test.js": FLAKY });
  result = await mineSwe({ repoPath: f.dir, name: "acme/widget", runs: 3, jobs: 2, swe: { cacheDir: cache.dir, testTimeoutSeconds: 120, setupTimeoutSeconds: 300 } });
}, 300_000);

afterAll(() => {
  f?.remove();
  root?.cleanup();
  cache?.cleanup();
});

describe("mine --type swe on a Node library (node --test)", () => {
  it("puts every candidate in its bucket", () => {
    const reasonOf = (commit: string | undefined) => result.rejects.find((r) => r.commit === commit)?.reason;
    expect(result.instances.map((m) => m.commit)).toEqual([c.fix]);
    expect(reasonOf(c.docs)).toBe("no_tests");
    expect(reasonOf(c.passing)).toBe("no_failing_test");
    expect(reasonOf(c.flaky)).toBe("flaky");
    const fix = result.instances[0]?.sample.scenario;
    expect(fix).toMatchObject({ base_commit: c.root, FAIL_TO_PASS: ["halves"], PASS_TO_PASS: ["doubles"] });
    expect(result.instances[0]?.sample.programming_language).toBe("JavaScript");
  });

  it("gives an instance gitgood's evaluation agrees with: gold resolves, empty is no_op", async () => {
    const source = await Repo.open(f.dir);
    const s = result.instances[0]?.sample as SweSample;
    const opts = { cacheDir: cache.dir, testTimeoutSeconds: 120, setupTimeoutSeconds: 300 };
    expect((await evaluatePatch(source, s, s.scenario.patch, opts)).status).toBe("resolved");
    expect((await evaluatePatch(source, s, "", opts)).status).toBe("no_op");
  }, 300_000);
});
