// Benchmark: `gitgood run --agent gold` on real SWE instances (a real project's suites) against running the
// same pytest commands by hand, with the same environment and plug-ins, measured in the same run.
//
//   npm run build && node bench/swe-real.js REPO INSTANCES.jsonl --env-spec SPEC.yaml [--runs 3] [--jobs 1]
//   e.g. node bench/swe-real.js ../tinydb tinydb-swe.jsonl --env-spec tinydb-spec.yaml
//   --bin OTHER/bin/gitgood.js   also another build's run in every round (before and after a change)
//
// INSTANCES.jsonl holds SWE instances (`gitgood mine REPO --type swe` writes them) or gitgood SWE samples. With a cache
// directory of its own (GITGOOD_CACHE_DIR), the bench runs once to build the environments (reported
// apart), then alternates, `--runs` times:
//   run    the whole `gitgood run INSTANCES --repo REPO --agent gold --jobs J` process, timed from start to
//          exit (the attempt's sandbox, the gold patch, the evaluation: a sandbox at base_commit, the
//          patch, the test_patch, the tests in the environment, the record);
//   floor  the test commands those evaluations ran (their argv, from the records), run one after another
//          by hand in checkouts prepared beforehand (base_commit, the gold patch and the test_patch
//          applied), with the environment's interpreter and the same plug-in setting
//          (PYTEST_DISABLE_PLUGIN_AUTOLOAD and the environment's plug-ins), no jail.
// Prints the medians, their ratio (goal: at most 1.5), the sum of each evaluation phase the records give,
// the load average and the machine's ceiling for process starts; keeps the figure, with its date and load,
// where bench/swe.js prints it beside its synthetic one (bench/swe-real-last.js).
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { spawnScaling } from "./machine.js";
import { REAL_LAST } from "./swe-real-last.js";
import { row } from "./rows.js";

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "bin", "gitgood.js");

function usage(message) {
  process.stderr.write(`bench/swe-real.js: ${message}\nusage: node bench/swe-real.js REPO INSTANCES.jsonl --env-spec SPEC.yaml [--runs N] [--jobs J] [--bin OTHER/bin/gitgood.js]\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
const positional = [];
const flags = { "--runs": "3", "--jobs": "1", "--env-spec": null, "--bin": null };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a in flags) flags[a] = argv[++i] ?? usage(`${a} needs a value`);
  else if (a.startsWith("--")) usage(`unknown option ${a}`);
  else positional.push(a);
}
const [repoArg, instancesArg] = positional;
if (!repoArg || !instancesArg || positional.length !== 2) usage("give a repository and an instances file");
if (!flags["--env-spec"]) usage("give --env-spec");
const repo = path.resolve(repoArg);
const instancesFile = path.resolve(instancesArg);
const specFile = path.resolve(flags["--env-spec"]);
const RUNS = Number(flags["--runs"]);
const JOBS = Number(flags["--jobs"]);
/** Another build's bin/gitgood.js, timed in the same rounds (before and after a change). */
const OTHER = flags["--bin"] ? path.resolve(flags["--bin"]) : null;
for (const f of [repo, instancesFile, specFile]) if (!existsSync(f)) usage(`${f} does not exist`);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(" ");

const tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-swe-real-"));
const cacheDir = path.join(tmp, "cache");
const env = { ...process.env, GITGOOD_CACHE_DIR: cacheDir, GITGOOD_SANDBOX_ROOT: path.join(tmp, "sandboxes") };

/** One whole `gitgood run` process of `bin`; its wall time in ms and its records. */
async function gitgoodRun(label, bin = BIN) {
  const out = path.join(tmp, `run-${label}`);
  const args = [bin, "run", instancesFile, "--repo", repo, "--agent", "gold", "--jobs", String(JOBS), "--env-spec", specFile, "--out", out];
  const t0 = process.hrtime.bigint();
  const code = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "inherit"] });
    child.on("error", reject);
    child.on("close", resolve);
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (code !== 0) throw new Error(`gitgood run exited with ${code}`);
  const records = readFileSync(path.join(out, "results.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  rmSync(out, { recursive: true, force: true });
  return { ms, records };
}

try {
  const samples = readFileSync(instancesFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const cold = await gitgoodRun("cold");
  const unresolved = cold.records.filter((r) => r.scores?.swe?.status !== "resolved");
  if (unresolved.length > 0) throw new Error(`gold must resolve every instance; not: ${unresolved.map((r) => r.sample_id).join(", ")}`);

  // The floor's checkouts: base_commit with the gold patch and the test_patch, made before anything is timed.
  const floors = cold.records.map((r, i) => {
    // A gitgood sample (its scenario inside) or a SWE-bench instance as it is.
    const sample = samples.find((s) => (s.id ?? s.instance_id) === r.sample_id);
    const sc = sample.scenario ?? sample;
    const dir = path.join(tmp, `floor-${i}`);
    execFileSync("git", ["-C", repo, "worktree", "add", "-q", "--detach", dir, sc.base_commit]);
    for (const patch of [sc.patch, sc.test_patch]) if (patch.trim() !== "") execFileSync("git", ["apply"], { cwd: dir, input: patch });
    const swe = r.scores.swe;
    const record = JSON.parse(readFileSync(path.join(cacheDir, "envs", swe.environment.key, "environment.json"), "utf8"));
    const venvBin = path.join(cacheDir, "envs", swe.environment.key, "env", "venv", "bin");
    const junit = path.join(dir, "junit.xml");
    const args = swe.tests.argv.map((a) => (a.startsWith("--junitxml=") ? `--junitxml=${junit}` : a));
    const vars = {
      ...process.env,
      PATH: `${venvBin}${path.delimiter}${process.env.PATH}`,
      VIRTUAL_ENV: path.dirname(venvBin),
      PYTHONDONTWRITEBYTECODE: "1",
      PYTHONNOUSERSITE: "1",
      PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1",
      ...(record.pytest_plugins.length > 0 ? { PYTEST_PLUGINS: record.pytest_plugins.join(",") } : {}),
    };
    return { dir, args, vars };
  });
  const floor = () => {
    const t0 = process.hrtime.bigint();
    for (const f of floors) spawnSync(f.args[0], f.args.slice(1), { cwd: f.dir, env: f.vars, stdio: "ignore" });
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };

  const runs = [];
  const other = [];
  const floorMs = [];
  const phases = { setup_s: [], agent_s: [], environment_s: [], apply_s: [], tests_s: [] };
  const loads = [];
  for (let r = 0; r < RUNS; r++) {
    // With another build, the two take turns at the place right after the floor (whose pytest runs leave the
    // environment's files warmest): run, floor, other in even rounds; other, run, floor in odd ones.
    const otherFirst = OTHER !== null && r % 2 === 1;
    if (otherFirst) other.push((await gitgoodRun(`other-${r}`, OTHER)).ms);
    const run = await gitgoodRun(`warm-${r}`);
    runs.push(run.ms);
    for (const k of Object.keys(phases)) phases[k].push(run.records.reduce((a, rec) => a + (rec.scores?.swe?.timings?.[k] ?? rec.timings?.[k] ?? 0), 0));
    floorMs.push(floor());
    if (OTHER && !otherFirst) other.push((await gitgoodRun(`other-${r}`, OTHER)).ms);
    loads.push(os.loadavg()[0]);
  }
  const ceiling = await spawnScaling({ starts: 60, cpuUnits: 30, rounds: 1 });
  const ratio = median(runs) / median(floorMs);
  console.log(`${samples.length} instances from ${path.basename(instancesFile)} (${repo}), gold patches, every one resolved; ${RUNS} alternated pairs, medians`);
  console.log(`the environments' first build (one cold run): ${(cold.ms / 1000).toFixed(1)} s for the whole run`);
  console.log(`floor: the same pytest commands by hand   ${(median(floorMs) / 1000).toFixed(2)} s  x1.00`);
  console.log(`gitgood run --agent gold --jobs ${JOBS}     ${(median(runs) / 1000).toFixed(2)} s  x${ratio.toFixed(2)}  (goal <= 1.5)`);
  if (OTHER) console.log(`the same with ${OTHER}   ${(median(other) / 1000).toFixed(2)} s  x${(median(other) / median(floorMs)).toFixed(2)}`);
  console.log(`phases the records give (sums over the instances, medians): ${Object.entries(phases).map(([k, v]) => `${k} ${median(v).toFixed(1)}`).join(", ")}`);
  console.log(`machine: ${os.cpus().length} cores, ${ceiling.spawn.msEach.toFixed(1)} ms a process start, two starting processes x${ceiling.spawn.twoOverOne.toFixed(2)} of one, two CPU loops x${ceiling.cpu.twoOverOne.toFixed(2)}`);
  console.log(`load average during the pairs (1 min): ${loads.map((l) => l.toFixed(1)).join(" ")}; now ${load()}`);
  console.log(`date ${new Date().toISOString()}`);
  row("SWE real suites, gitgood run --agent gold / the pytest commands by hand", "<= 1.5", `${ratio.toFixed(2)}x`, ratio <= 1.5);
  // bench/swe.js prints this figure beside its synthetic one.
  const last = {
    date: new Date().toISOString(),
    instances: `${samples.length} instances from ${path.basename(instancesFile)} (${path.basename(repo)})`,
    runMs: median(runs),
    floorMs: median(floorMs),
    ratio,
    pairs: RUNS,
    loads,
    cores: os.cpus().length,
    all: { runs, floorMs, phases, ...(OTHER ? { other } : {}) },
  };
  mkdirSync(path.dirname(REAL_LAST), { recursive: true, mode: 0o700 });
  writeFileSync(REAL_LAST, JSON.stringify(last));
} finally {
  spawnSync("git", ["-C", repo, "worktree", "prune"]);
  rmSync(tmp, { recursive: true, force: true });
}
