import { execFileSync } from "node:child_process";
import { symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { relatedTestFiles, trimTestOutput } from "../../src/commit0/tests.js";
import { makeSkeleton } from "../../src/commit0/skeleton.js";
import type { RepoCompletionSample } from "../../src/dataset/sample.js";
import { Repo } from "../../src/git/repo.js";
import { COMMIT0 } from "../../src/scenarios/commit0/index.js";
import { Commit0Scenario } from "../../src/scenarios/commit0/scenario.js";
import { libraryRepository } from "../helpers/commit0.js";
import { useCacheDir } from "../helpers/envs.js";
import type { Fixture } from "../helpers/fixture.js";
import { useSandboxRoot } from "../helpers/scenarios.js";

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let fixture: Fixture;
let reference: string;
let task: RepoCompletionSample;
let scenario: Commit0Scenario;

const inSandbox = (...args: string[]) => execFileSync("git", args, { cwd: scenario.sandbox.workDir, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" } });

beforeAll(async () => {
  root = useSandboxRoot();
  cache = useCacheDir();
  ({ fixture, reference } = libraryRepository());
  const options = { cacheDir: cache.dir, testTimeoutSeconds: 120, setupTimeoutSeconds: 300 };
  task = (await makeSkeleton(fixture.dir, { src: "shapes", ...options })).sample;
  // COMMIT0's public type names only LiveScenario; the test reads the live class's own state.
  const live = await COMMIT0.setup(task, await Repo.open(fixture.dir), { settings: { commit0: options } });
  if (!(live instanceof Commit0Scenario)) throw new Error("COMMIT0 did not set up a Commit0Scenario");
  scenario = live;
}, 180_000);

afterAll(() => {
  scenario?.close();
  fixture?.remove();
  root.cleanup();
  cache.cleanup();
});

const call = async (tool: string, args: Record<string, unknown>) => scenario.callTool(tool, { ...args, reason: "test" });

describe("the COMMIT0 sandbox", () => {
  it("holds the skeleton commit and nothing of the reference: no commit, tree or blob of it is reachable or stored", () => {
    const stored = inSandbox("cat-file", "--batch-all-objects", "--batch-check=%(objectname)").split("\n").filter(Boolean);
    const referenceOnly = fixture
      .git("diff", "--raw", "--no-abbrev", task.scenario.base_commit, reference)
      .split("\n")
      .map((l) => l.split(" ")[3] as string);
    expect(referenceOnly).toHaveLength(4);
    for (const oid of [reference, fixture.git("rev-parse", `${reference}^{tree}`), ...referenceOnly]) expect(stored).not.toContain(oid);
    expect(inSandbox("log", "--all", "--format=%H").trim().split("\n")).toEqual([task.scenario.base_commit]);
    expect(inSandbox("cat-file", "-t", task.scenario.base_commit).trim()).toBe("commit");
  });

  it("lists the files with stubs in commit0's dependency order (the import cycle broken by its first file losing its imports)", async () => {
    const context = await scenario.initialContext();
    expect((context.data.files as { file: string }[]).map((f) => f.file)).toEqual(["shapes/units.py", "shapes/vectors.py", "shapes/convert.py", "shapes/area.py"]);
    expect(context.text).toContain("11 counted test(s)");
    const r = await call("list_stubs", {});
    expect(r.output.split("\n")[0]).toBe("shapes/units.py: 2 stub(s): to_cm, from_cm");
    const one = await call("list_stubs", { path: "shapes/area.py" });
    expect(one.output).toContain('line 5: rect_area: def rect_area(width, height, unit="cm"):');
  });

  it("edits bodies exactly, refuses renames, broken syntax and links, and runs the related tests and the suite", async () => {
    const renamed = await call("replace_function_body", { path: "shapes/vectors.py", function: "Vector.scale", body: "def scale(self, factor):\n    return self" });
    expect(renamed).toMatchObject({ ok: false, error: { code: "EDIT_REFUSED" } });
    const broken = await call("replace_function_body", { path: "shapes/vectors.py", function: "Vector.scale", body: "return (" });
    expect(broken).toMatchObject({ ok: false, error: { code: "EDIT_REFUSED" } });
    expect(inSandbox("status", "--porcelain")).toBe("");
    symlinkSync(path.join(fixture.dir, "shapes/vectors.py"), path.join(scenario.sandbox.workDir, "shapes/link.py"));
    const link = await call("replace_function_body", { path: "shapes/link.py", function: "Vector.add", body: "return self" });
    expect(link).toMatchObject({ ok: false, error: { code: "SYMLINK_REFUSED" } });
    for (const [fn, body] of Object.entries({ "Vector.__init__": "self.x = x\nself.y = y", "Vector.scale": "return Vector(self.x * k, self.y * k)" })) {
      expect((await call("replace_function_body", { path: "shapes/vectors.py", function: fn, body })).ok).toBe(true);
    }
    const related = await call("run_tests", { source_file: "shapes/vectors.py" });
    expect(related.output).toMatch(/^Ran tests\/test_vectors\.py: 1 passed, 2 failed/);
    // The first failure's traceback comes first.
    expect(related.output.split("\n")[1]).toMatch(/^_+ test_add _+$/);
    const suite = await call("run_tests", {});
    expect(suite.output).toContain("Counted tests passing: 2 of 11.");
    expect(scenario.lastSuite).toMatchObject({ passed: 2, total: 11 });
    const compiled = await call("compile_check", {});
    expect(compiled.output).toBe("All 1 file(s) compile: shapes/vectors.py.");
  }, 120_000);
});

describe("related tests and trimmed output", () => {
  it("finds a file's tests by its stem, or by a pattern", () => {
    const tests = ["tests/test_units.py", "tests/test_convert.py", "tests/unit/test_units_extra.py", "tests/test_area.py"];
    expect(relatedTestFiles("shapes/units.py", tests)).toEqual(["tests/test_units.py", "tests/unit/test_units_extra.py"]);
    expect(relatedTestFiles("shapes/units.py", tests, "tests/test_{stem}.py")).toEqual(["tests/test_units.py"]);
    expect(relatedTestFiles("shapes/units.py", tests, "tests/**/test_{stem}*.py")).toEqual(["tests/unit/test_units_extra.py"]);
  });

  it("puts the first failure first and keeps to the budget", () => {
    const log = [
      "============================= test session starts ==============================",
      "collected 3 items",
      "=================================== FAILURES ===================================",
      "___________________________________ test_one ___________________________________",
      "E   assert 1 == 2",
      "___________________________________ test_two ___________________________________",
      `E   ${"x".repeat(500)}`,
      "=========================== short test summary info ============================",
      "PASSED tests/test_a.py::test_zero",
      "FAILED tests/test_a.py::test_one - assert 1 == 2",
      "FAILED tests/test_a.py::test_two - AssertionError",
      "========================= 2 failed, 1 passed in 0.01s ==========================",
    ].join("\n");
    const short = trimTestOutput(log, 400);
    expect(short.split("\n").slice(0, 2)).toEqual(["___________________________________ test_one ___________________________________", "E   assert 1 == 2"]);
    expect(short).toContain("FAILED tests/test_a.py::test_two - AssertionError");
    expect(short).not.toContain("PASSED");
    expect(short).toContain("[... 1 more failure(s) not shown]");
    expect(trimTestOutput(log, 10_000)).toContain("x".repeat(500));
  });
});
