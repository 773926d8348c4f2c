// Benchmark: SWE-style evaluation of gold patches end to end, against the floor of running the same test
// commands directly, measured in the same run.
//
//   npm run bench:swe                 (builds dist/ first)
//   BENCH_INSTANCES=8 BENCH_RUNS=5 npm run bench:swe
//
// A fixture Python repository is built in code: one package with BENCH_INSTANCES functions, each with a
// bug whose fix commit (the gold patch) adds the tests that decide it (the test_patch), as SWE-bench
// instances have them. Then, with an empty cache directory:
//   cold   every instance validated (two evaluations: without the gold patch, then with it) and its gold
//          patch evaluated as an attempt's would be (fresh sandbox, apply strategies, test_patch, tests in
//          the environment); the first one builds the environment, whose build time (the environment's
//          record says it) is reported apart and taken out of the ratio;
//   warm   the attempt's evaluation again, the environment taken from the cache (BENCH_RUNS times, median);
//   floor  the same test command (python -m pytest with JUnit XML on the same files) run directly in plain
//          checkouts prepared beforehand: for warm, once on each fixed tree; for cold, the three runs the
//          evaluation must make: on the base tree with the test_patch (validation's first), then twice on
//          the fixed tree (validation's second, the attempt's). Interleaved with warm, medians.
// Prints the totals, the ratios (goal: at most 1.5 each), the CPU time (user + system) of the evaluations
// and the floors' process trees, the git processes of one warm evaluation, the load average, and what the
// cache saves. Every process start counts on a small fixture (its tests take a third of a second); to count
// them all, programs included: strace -f -e trace=execve -o /tmp/starts.txt node bench/swe.js
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Repo } from "../dist/git/repo.js";
import { evaluatePatch } from "../dist/swe/evaluate.js";
import { validateInstance } from "../dist/swe/validate.js";
import { chooseIsolation } from "../dist/sandbox/isolation.js";
import { realSuiteLine } from "./swe-real-last.js";
import { envsDir } from "../dist/testenv/cache.js";
import { buildSweRepo, git, gitEnv as env } from "./python-repos.js";
import { row } from "./rows.js";

const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 4);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Clock ticks a second, for /proc's CPU times. */
const TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU milliseconds (user + system) of this process and every child it has waited for, theirs included
 * (git, bwrap and the tests bwrap ran): /proc/self/stat's utime, stime, cutime and cstime. NaN elsewhere.
 */
function cpuMs() {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / TICKS;
  } catch {
    return Number.NaN;
  }
}

async function timed(fn) {
  const start = process.hrtime.bigint();
  const cpu = cpuMs();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, cpu: cpuMs() - cpu, value };
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-swe-"));
try {
  const repoDir = path.join(tmp, "repo");
  mkdirSync(repoDir);
  const samples = buildSweRepo(repoDir, INSTANCES);
  const source = await Repo.open(repoDir);
  const opts = { cacheDir: path.join(tmp, "cache"), testTimeoutSeconds: 300, setupTimeoutSeconds: 600 };
  process.env.GITGOOD_SANDBOX_ROOT = path.join(tmp, "sandboxes");

  const evaluateAll = async () => {
    const statuses = [];
    for (const s of samples) statuses.push((await evaluatePatch(source, s, s.scenario.patch, opts)).status);
    return statuses;
  };
  // Cold: what a new instance pays, its validation (two test runs: without and with the gold patch)
  // then the evaluation, the first one building the environment.
  const cold = await timed(async () => {
    for (const s of samples) {
      const problem = await validateInstance(source, s, opts);
      if (problem) throw new Error(`instance ${s.scenario.instance_id} is not valid: ${problem.reason}`);
    }
    return evaluateAll();
  });
  const wrong = cold.value.filter((st) => st !== "resolved");
  if (wrong.length > 0) throw new Error(`gold patches must resolve every instance; got ${wrong.join(", ")}`);

  // What the cold run spent building the environment, as its record says: reported apart.
  const envsRoot = envsDir(opts.cacheDir);
  const buildMs = readdirSync(envsRoot)
    .filter((d) => !d.startsWith("."))
    .map((d) => {
      try {
        return JSON.parse(readFileSync(path.join(envsRoot, d, "environment.json"), "utf8")).setup_seconds * 1000;
      } catch {
        return 0;
      }
    })
    .reduce((a, b) => a + b, 0);

  // The floors: each instance's trees checked out beforehand; only the test commands are timed. The
  // base tree gets the test_patch, as validation's first run has it.
  const trees = samples.map((s, i) => {
    const fixed = path.join(tmp, `floor-${i}`);
    git(repoDir, ["worktree", "add", "-q", "--detach", fixed, s.fix]);
    const before = path.join(tmp, `floor-before-${i}`);
    git(repoDir, ["worktree", "add", "-q", "--detach", before, s.scenario.base_commit]);
    execFileSync("git", ["apply"], { cwd: before, input: s.scenario.test_patch, env });
    return { fixed, before, files: [s.test, "tests/test_base.py"] };
  });
  // The interpreter itself, not a version manager's shim in front of it (the environment runs it directly too).
  const python = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();
  // pytest exits non-zero where a test fails (the base tree's FAIL_TO_PASS test): that is its answer, not an error.
  // Without the host's plugins, as an evaluation runs it (its environment asks for none here): with them, the
  // floor paid for importing hypothesis and pytest-benchmark on every run, which the evaluation does not.
  const pytest = (wt, files) =>
    spawnSync(python, ["-m", "pytest", "-rA", "-p", "no:cacheprovider", `--junitxml=${path.join(wt, "junit.xml")}`, ...files], {
      cwd: wt,
      env: { ...process.env, PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" },
      stdio: "ignore",
    });
  const runFloor = () => timed(async () => {
    for (const t of trees) pytest(t.fixed, t.files);
  });
  const runColdFloor = () => timed(async () => {
    for (const t of trees) {
      pytest(t.before, t.files);
      pytest(t.fixed, t.files);
      pytest(t.fixed, t.files);
    }
  });
  // Warm evaluations and the floors interleaved, so the machine's load hits all alike; medians.
  const warms = [];
  const floors = [];
  const coldFloors = [];
  for (let r = 0; r < RUNS; r++) {
    warms.push(await timed(evaluateAll));
    floors.push(await runFloor());
    coldFloors.push(await runColdFloor());
  }
  const warm = { ms: median(warms.map((t) => t.ms)), cpu: median(warms.map((t) => t.cpu)) };
  const floor = { ms: median(floors.map((t) => t.ms)), cpu: median(floors.map((t) => t.cpu)) };
  const coldFloor = median(coldFloors.map((t) => t.ms));
  const coldFloorCpu = median(coldFloors.map((t) => t.cpu));
  const coldEval = cold.ms - buildMs;
  // CPU where all of it can be counted: the tests run in bubblewrap's PID namespace, whose CPU never
  // reaches this process's children's times, so a pass with isolation none (the same evaluations, the
  // tests a plain child) pairs the evaluation's whole CPU with the floor's.
  const plain = { ...opts, isolation: chooseIsolation({ mode: "none" }) };
  const plainCpu = [];
  const plainFloorCpu = [];
  for (let r = 0; r < RUNS; r++) {
    plainCpu.push((await timed(async () => { for (const s of samples) await evaluatePatch(source, s, s.scenario.patch, plain); })).cpu);
    plainFloorCpu.push((await runFloor()).cpu);
  }
  // The git processes of one more warm evaluation, each writing a line to the file GIT_TRACE names.
  const traceFile = path.join(tmp, "git-trace");
  process.env.GIT_TRACE = traceFile;
  await evaluatePatch(source, samples[0], samples[0].scenario.patch, opts);
  delete process.env.GIT_TRACE;
  const gitStarts = readFileSync(traceFile, "utf8").split("\n").filter((l) => /trace: (built-in|exec): git /.test(l)).length;

  const per = (ms) => `${(ms / samples.length).toFixed(0)} ms per instance`;
  console.log(`${samples.length} instances of bench/pkg, gold patches, every one resolved`);
  console.log(`floor: the test commands run directly   ${floor.ms.toFixed(0).padStart(7)} ms  (${per(floor.ms)})  x1.00`);
  console.log(`evaluation, environment cached (warm)   ${warm.ms.toFixed(0).padStart(7)} ms  (${per(warm.ms)})  x${(warm.ms / floor.ms).toFixed(2)}  (goal <= 1.5)`);
  console.log(`floor: the three test runs of a new instance ${coldFloor.toFixed(0).padStart(7)} ms  (${per(coldFloor)})  x1.00`);
  console.log(`validation + evaluation, cold, without the environment build ${coldEval.toFixed(0).padStart(7)} ms  (${per(coldEval)})  x${(coldEval / coldFloor).toFixed(2)}  (goal <= 1.5)`);
  console.log(`the environment build, apart                 ${buildMs.toFixed(0).padStart(7)} ms  (once, for every instance)`);
  const cpuRatio = (a, b) => (Number.isFinite(a) && b > 0 ? `x${(a / b).toFixed(2)}` : "n/a");
  console.log(`CPU (user + sys), the tests countable (isolation none): evaluation ${median(plainCpu).toFixed(0)} ms vs the floor ${median(plainFloorCpu).toFixed(0)} ms (${cpuRatio(median(plainCpu), median(plainFloorCpu))})`);
  console.log(`CPU outside the jail (node, git, bwrap; not the tests inside it): warm ${warm.cpu.toFixed(0)} ms (${per(warm.cpu)}); cold ${cold.cpu.toFixed(0)} ms with the environment build; the floors' tests ${floor.cpu.toFixed(0)} ms and ${coldFloorCpu.toFixed(0)} ms`);
  console.log(`git processes of one warm evaluation: ${gitStarts} (besides bwrap and the test command it runs)`);
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  row("SWE gold, environment cached / test commands run directly", "<= 1.5", `${(warm.ms / floor.ms).toFixed(2)}x`, warm.ms / floor.ms <= 1.5);
  row("SWE cold (validation + evaluation) / its three test runs", "<= 1.5", `${(coldEval / coldFloor).toFixed(2)}x`, coldEval / coldFloor <= 1.5);
  row("SWE environment build (apart)", "reported", `${(buildMs / 1000).toFixed(1)} s`, true);
  console.log(`the environment cache saves ${(cold.ms - warm.ms).toFixed(0)} ms over ${samples.length} evaluations (${(((cold.ms - warm.ms) / cold.ms) * 100).toFixed(0)} % of the cold time)`);
  console.log(realSuiteLine());
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
