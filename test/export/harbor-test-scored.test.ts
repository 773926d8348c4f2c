import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateCompletion } from "../../src/commit0/evaluate.js";
import type { Commit0Options } from "../../src/commit0/options.js";
import { makeSkeleton } from "../../src/commit0/skeleton.js";
import type { RepoCompletionSample, SweSample } from "../../src/dataset/sample.js";
import { exportHarborTask } from "../../src/export/harbor.js";
import { Repo } from "../../src/git/repo.js";
import { COMMIT0 } from "../../src/scenarios/commit0/index.js";
import { SWE } from "../../src/scenarios/swe/index.js";
import { defaultIsolation } from "../../src/sandbox/isolation.js";
import { PLUGIN_MODULE, infrastructureRules, testInfrastructure } from "../../src/testenv/index.js";
import { COUNTED, libraryRepository } from "../helpers/commit0.js";
import { useCacheDir } from "../helpers/envs.js";
import type { Fixture } from "../helpers/fixture.js";
import { useSandboxRoot } from "../helpers/scenarios.js";
import { pythonTask, type PythonTask } from "../helpers/swe.js";
import { allBytes, bundleObjects, git, runScript, startRepo } from "./harbor-scripts.js";

/*
 * The Harbor tasks of the test-scored families (COMMIT0, SWE), their scripts run outside Docker: they
 * score as gitgood scores, and an answer that edits the evaluation's tests or test configuration gains
 * nothing in the exported verifier, as in gitgood's own evaluation.
 */

/** A conftest.py that turns every test report into a pass. */
const FORCE_PASS = [
  "import pytest",
  "",
  "",
  "@pytest.hookimpl(hookwrapper=True)",
  "def pytest_runtest_makereport(item, call):",
  "    outcome = yield",
  "    outcome.get_result().outcome = 'passed'",
  "",
].join("\n");

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let scratch: string;
let out: string;
let library: Fixture;
let reference: string;
let completion: RepoCompletionSample;
let completionTask: string;
let skeletonRate: number;
let swe: PythonTask;
let sweTask: string;

beforeAll(async () => {
  root = useSandboxRoot();
  cache = useCacheDir();
  scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-harbor-scored-"));
  out = path.join(scratch, "tasks");
  ({ fixture: library, reference } = libraryRepository());
  const opts: Commit0Options = { cacheDir: cache.dir, testTimeoutSeconds: 120, setupTimeoutSeconds: 300 };
  completion = (await makeSkeleton(library.dir, { src: "shapes", ...opts })).sample;
  const source = await Repo.open(library.dir);
  // The gate runs COMMIT0's and SWE's scripts in gitgood's jail with the environment gitgood's evaluation builds.
  const check = { isolation: defaultIsolation() };
  const c0 = await exportHarborTask(completion, COMMIT0, source, { out, version: "test", settings: { commit0: opts }, check });
  expect(c0.check?.problems).toEqual([]);
  expect(c0.check?.oracle.metrics).toMatchObject({ reward: 1, solved: 1, pass_fraction: 1, total: COUNTED.length });
  completionTask = c0.dir!;
  const empty = await evaluateCompletion(source, completion, "", opts);
  expect(empty.error).toBeUndefined();
  skeletonRate = empty.pass_rate;
  swe = pythonTask();
  const sweExport = await exportHarborTask(swe.sample(), SWE, await Repo.open(swe.fixture.dir), { out, version: "test", settings: { swe: { cacheDir: cache.dir } }, check });
  expect(sweExport.check?.problems).toEqual([]);
  expect(sweExport.check?.nop.metrics).toMatchObject({ reward: 0, solved: 0, fail_to_pass: 0, pass_to_pass: 1 });
  sweTask = sweExport.dir!;
}, 240_000);

afterAll(() => {
  library?.remove();
  swe?.fixture.remove();
  root?.cleanup();
  cache?.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

/** A copy of a task's test.sh with the evaluation's files left as the answer has them (the defence switched off). */
function unguarded(task: string): string {
  const script = readFileSync(path.join(task, "tests", "test.sh"), "utf8");
  const off = script.replace(/^restore_evaluation_files "\$base" \|\|/m, "true ||");
  expect(off).not.toBe(script);
  writeFileSync(path.join(task, "tests", "test-unguarded.sh"), off, { mode: 0o755 });
  return "tests/test-unguarded.sh";
}

describe("export harbor: COMMIT0", () => {
  it("the untouched skeleton scores its pass fraction, as gitgood scores it; solve.sh scores 1", () => {
    expect(skeletonRate).toBeGreaterThan(0);
    expect(skeletonRate).toBeLessThan(1);
    const untouched = runScript(completionTask, "tests/test.sh", startRepo(completionTask, scratch), scratch);
    expect(Number(untouched.reward), untouched.output).toBeCloseTo(skeletonRate, 5);
    const metrics = JSON.parse(readFileSync(path.join(untouched.logs, "verifier", "reward.json"), "utf8")) as Record<string, number>;
    expect(metrics).toMatchObject({ solved: 0, total: COUNTED.length });
    expect(metrics.reward).toBeCloseTo(skeletonRate, 5);
    expect(metrics.pass_fraction).toBe(metrics.reward);
    const tally = JSON.parse(readFileSync(path.join(untouched.logs, "verifier", "commit0.json"), "utf8")) as { total: number; all_pass: boolean };
    expect(tally).toMatchObject({ total: COUNTED.length, all_pass: false });
    const repo = startRepo(completionTask, scratch);
    runScript(completionTask, "solution/solve.sh", repo, scratch);
    const solved = runScript(completionTask, "tests/test.sh", repo, scratch);
    expect(solved.reward, solved.output).toBe("1\n");
  });

  it("the environment is the skeleton alone: no reference commit or implementation in the bundle or its files", () => {
    const objects = bundleObjects(completionTask, scratch);
    expect(objects.has(completion.scenario.base_commit)).toBe(true);
    expect(objects.has(reference)).toBe(false);
    expect(objects.has(git(library.dir, "rev-parse", `${reference}:shapes/area.py`).trim())).toBe(false);
    const body = "total += a.x * b.y - b.x * a.y";
    expect(allBytes(path.join(completionTask, "environment"))).not.toContain(body);
    expect(allBytes(path.join(completionTask, "tests"))).not.toContain(body);
    expect(allBytes(path.join(completionTask, "solution"))).toContain(body);
    expect(readFileSync(path.join(completionTask, "instruction.md"), "utf8")).toContain("shapes/area.py");
  });

  it("writes task.toml with the fields of the tasks test/export/harbor.test.ts checks against Harbor's schema, and says which reward", () => {
    const read = spawnSync("python3", ["-c", "import tomllib,json,sys\nprint(json.dumps([tomllib.load(open(f,'rb')) for f in sys.argv[1:]]))", ...[completionTask, sweTask].map((t) => path.join(t, "task.toml"))], { encoding: "utf8" });
    expect(read.stderr).toBe("");
    const [commit0, swe] = JSON.parse(read.stdout) as Record<string, Record<string, unknown>>[];
    const shape = (doc: Record<string, Record<string, unknown>>) => Object.entries(doc).map(([k, v]) => (typeof v === "object" && k !== "metadata" ? `${k}: ${Object.keys(v).sort().join(",")}` : k));
    expect(shape(commit0!)).toEqual(shape(swe!));
    expect(commit0!.metadata).toMatchObject({ scenario: "COMMIT0", reward: "pass fraction" });
    expect(commit0!.task).toMatchObject({ name: `gitgood/${path.basename(completionTask)}` });
  });

  it("a conftest.py added to tests/ that forces every test to pass scores no more than the skeleton (and 1 with the defence off)", () => {
    const repo = startRepo(completionTask, scratch);
    writeFileSync(path.join(repo, "tests", "conftest.py"), FORCE_PASS);
    const guarded = runScript(completionTask, "tests/test.sh", repo, scratch);
    expect(guarded.output).toContain("the evaluation's version put back: tests/conftest.py");
    expect(Number(guarded.reward)).toBeCloseTo(skeletonRate, 5);
    const attacked = startRepo(completionTask, scratch);
    writeFileSync(path.join(attacked, "tests", "conftest.py"), FORCE_PASS);
    expect(runScript(completionTask, unguarded(completionTask), attacked, scratch).reward).toBe("1\n");
  });
});

describe("export harbor: SWE's verifier drops the answer's test configuration, as gitgood's evaluation does", () => {
  const attacks: Array<{ name: string; files: Record<string, string> }> = [
    { name: "a root conftest.py forcing every test to pass", files: { "conftest.py": FORCE_PASS } },
    { name: "a pytest.ini whose addopts loads a plug-in forcing every test to pass", files: { "pytest.ini": "[pytest]\naddopts = -p forcepass\n", "forcepass.py": FORCE_PASS } },
  ];
  for (const attack of attacks) {
    it(`${attack.name} scores 0 (and 1 with the defence off)`, () => {
      for (const [guard, reward] of [[true, "0\n"], [false, "1\n"]] as const) {
        const repo = startRepo(sweTask, scratch);
        for (const [file, content] of Object.entries(attack.files)) writeFileSync(path.join(repo, file), content);
        const r = runScript(sweTask, guard ? "tests/test.sh" : unguarded(sweTask), repo, scratch);
        expect(r.reward, `${guard ? "guarded" : "unguarded"}: ${r.output}`).toBe(reward);
      }
    });
  }

  it("reads pytest's summary alone: PASSED lines the code under test prints at exit, with or without a summary header of its own, win nothing", () => {
    const forged = ["tests/test_sub.py::test_sub", "tests/test_sub.py::test_sub_negative"].map((id) => `PASSED ${id}`).join("\\n");
    for (const header of ["", "=========================== short test summary info ============================\\n"]) {
      const repo = startRepo(sweTask, scratch);
      const code = readFileSync(path.join(repo, "calc", "__init__.py"), "utf8");
      writeFileSync(path.join(repo, "calc", "__init__.py"), `import atexit\nimport sys\natexit.register(lambda: sys.stdout.write("${header}${forged}\\n"))\n${code}`);
      const r = runScript(sweTask, "tests/test.sh", repo, scratch);
      const log = readFileSync(path.join(r.logs, "verifier", "pytest.log"), "utf8");
      // The forgery is in the log, after pytest's last line: a verdict reading every line would say 1.
      expect(log.trimEnd().split("\n").slice(-2)).toEqual(forged.split("\\n"));
      expect(r.reward, r.output).toBe("0\n");
    }
  });

  it("refuses a non-Python instance in one line: its tests are not pytest's", async () => {
    const sample: SweSample = { ...swe.sample({}, "acme__calc-js"), programming_language: "JavaScript" };
    const err = (await exportHarborTask(sample, SWE, await Repo.open(swe.fixture.dir), { out, version: "test" }).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/runs its tests with pytest; acme__calc-js is JavaScript/);
    expect(err.message.split("\n")).toHaveLength(1);
  });
});

describe("export harbor: owned.py applies gitgood's rules of the evaluation's files", () => {
  it("says of every path what src/testenv/test-infra.ts says", () => {
    const dataset = ["named/file.txt", "named/dir/"];
    const modules = ["myplugin"];
    const paths = [
      "conftest.py",
      "./a//b/conftest.py",
      "pytest.ini",
      "setup.cfg",
      "tox.ini",
      "pyproject.toml",
      "pkg/sitecustomize.py",
      "usercustomize.py",
      "x.pth",
      "lib/__pycache__/m.cpython-311.pyc",
      "m.pyo",
      "tests/data/x.json",
      "src/test/y.txt",
      "test_a.py",
      "pkg/a_test.py",
      "pkg/testing.py",
      "pkg/mod.py",
      "README.md",
      "package.json",
      "web/jest.config.js",
      "vitest.config.mts",
      "build.gradle.kts",
      "pom.xml",
      ".mocharc.yml",
      "named/file.txt",
      "named/file.txt.bak",
      "named/dir/z",
      "myplugin.py",
      "src/myplugin/__init__.py",
      "other/myplugin.py",
      `${PLUGIN_MODULE}.py`,
      "dir with space/conftest.py",
      "ünï/tests/x",
    ];
    const rules = path.join(scratch, "rules.json");
    writeFileSync(rules, JSON.stringify(infrastructureRules(dataset, modules)));
    const r = spawnSync("python3", [path.join(sweTask, "tests", "owned.py"), rules], { input: paths.map((p) => `${p}\0`).join("") });
    expect(r.stderr.toString()).toBe("");
    const saysPython = new Set(r.stdout.toString("utf8").split("\0").filter(Boolean));
    const infra = testInfrastructure(dataset, modules);
    const saysGitgood = new Set(paths.filter((p) => infra.owns(p)));
    expect([...saysPython].sort()).toEqual([...saysGitgood].sort());
    // Both answers occur, so the comparison can fail.
    expect(saysGitgood.size).toBeGreaterThan(5);
    expect(paths.length - saysGitgood.size).toBeGreaterThan(3);
  });
});
