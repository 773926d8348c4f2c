// Benchmark: `gitgood run --jobs 1/2/4` on the same samples, for a baseline and the oracle.
//
//   npm run bench:run-jobs                                 a synthetic repository, mined here
//   npm run bench:run-jobs -- REPO SAMPLES.jsonl           a repository of your own and its samples
//   npm run bench:run-jobs -- REPO SAMPLES.jsonl --bin OTHER/bin/gitgood.js
//                                                          also another build, alternated with this one
//
// Every run is a fresh run directory (nothing resumed) of `gitgood run SAMPLES --agent A --jobs J`, in its
// own process. The jobs counts are alternated within each round (and their order turned from round to
// round) so that the machine's load hits every count alike. Besides them, each round runs:
//   - the run's fixed cost: the same command on no samples (start-up, checks, run.json), so that its
//     share of a `--jobs 1` run is printed and the attempts can be seen to dominate;
//   - the two-core floor of `--jobs 2`: two `--jobs 1` processes at once, each on half of the samples
//     (nothing shared between them: no event loop, no pack cache, no reader), the wall time of the pair.
// Prints, per agent and build: the median wall time per jobs count, the scaling curve, the median of the
// paired ratios `--jobs 2` / `--jobs 1` against the goal (<= 0.6 on two idle cores) and against the floor (goal <= 1.1),
// the CPU per attempt (user + system of the run and every process it started, fixed cost included and
// apart), the cores busy on average (CPU / wall), and the CPU bound: a run cannot take less wall time
// than its CPU spread over the cores, so `CPU(--jobs 2) / cores / wall(--jobs 1)` is the best ratio the
// machine allows that run. The load average is printed beside each round.
// Last, what the machine allows (bench/machine.js): the programs one `--jobs 1` run starts per attempt
// (counted by strace in a run of its own, not timed), and how process starts and a CPU loop scale from one
// process to two on this machine; where starts do not scale, neither can a harness that makes them.
// BENCH_RUNS rounds (default 3), BENCH_SAMPLES samples spread over the samples file (default 24: 36
// attempts on the synthetic repository, so that the fixed cost is a tenth of a `--jobs 1` run or less),
// BENCH_JOBS the counts (default 1,2,4), BENCH_AGENTS the agents (default baseline,oracle).
import { row } from "./rows.js";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildSyntheticRepo } from "./synthetic-repo.js";
import { countStarts, machineLines, spawnScaling } from "./machine.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 24);
const JOBS = (process.env.BENCH_JOBS ?? "1,2,4").split(",").map(Number);
const AGENTS = (process.env.BENCH_AGENTS ?? "baseline,oracle").split(",");
const GOAL = 0.6;
/** `--jobs 2` against the two-process floor: what the machine allows two attempts at once, whatever it is. */
const FLOOR_GOAL = 1.1;
const OWN_BIN = fileURLToPath(new URL("../bin/gitgood.js", import.meta.url));

const load = () => os.loadavg().map((l) => l.toFixed(1)).join(" ");

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** CPU seconds (user + system) of this process's reaped children so far (Linux: /proc/self/stat). */
function childrenCpu() {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // cutime and cstime are fields 16 and 17 of the whole line, 14 and 15 after the name.
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

function parseArgs(argv) {
  const positional = [];
  const bins = [OWN_BIN];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--bin") bins.push(path.resolve(argv[++i]));
    else positional.push(argv[i]);
  }
  return { repo: positional[0], samples: positional[1], bins };
}

/** `gitgood ARGS` in a process of its own, without blocking this one (so that several can run at once): its exit code. */
function gitgoodAsync(bin, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (b) => {
      err = (err + b.toString("utf8")).slice(-2000);
    });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 || code === 1 ? resolve(code) : reject(new Error(`gitgood ${args.join(" ")} failed (${code}): ${err}`))));
  });
}

function gitgood(bin, args, env) {
  const r = spawnSync(process.execPath, [bin, ...args], { env, encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0 && r.status !== 1) throw new Error(`gitgood ${args.join(" ")} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return r;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-run-jobs-"));
  const env = { ...process.env, GITGOOD_SANDBOX_ROOT: path.join(tmp, "sandboxes"), GITGOOD_CACHE_DIR: path.join(tmp, "cache") };
  try {
    let repo = args.repo ? path.resolve(args.repo) : path.join(tmp, "repo");
    let samplesFile = args.samples ? path.resolve(args.samples) : path.join(tmp, "samples.jsonl");
    if (!args.repo) {
      await buildSyntheticRepo(repo, { commits: 3000, files: 2000 });
      gitgood(OWN_BIN, ["mine", repo, "--name", "bench/repo", "-o", samplesFile], env);
    } else if (!args.samples) {
      samplesFile = path.join(tmp, "samples.jsonl");
      gitgood(OWN_BIN, ["mine", repo, "-o", samplesFile], env);
    }
    // The same samples for every run, spread over the file (merges and chains in its proportions).
    const all = readFileSync(samplesFile, "utf8").split("\n").filter(Boolean);
    const drawn = path.join(tmp, "drawn.jsonl");
    const chosen = all.length <= SAMPLES ? all : Array.from({ length: SAMPLES }, (_, i) => all[Math.floor(((i + 0.5) * all.length) / SAMPLES)]);
    writeFileSync(drawn, `${chosen.join("\n")}\n`);
    process.stderr.write(`${chosen.length} of ${all.length} samples from ${repo}; ${RUNS} rounds of --jobs ${JOBS.join("/")}, the floor and the fixed cost; ${os.availableParallelism()} cores\n`);

    const half = Math.ceil(chosen.length / 2);
    const halves = [chosen.slice(0, half), chosen.slice(half)].map((lines, i) => {
      const file = path.join(tmp, `half-${i}.jsonl`);
      writeFileSync(file, `${lines.join("\n")}\n`);
      return file;
    });
    const none = path.join(tmp, "none.jsonl");
    writeFileSync(none, "");
    const cores = os.availableParallelism();

    let n = 0;
    /** `gitgood run` of every samples file at once (one process each): wall time of them all, CPU of all, attempts. */
    const timed = async (bin, agent, jobs, files) => {
      const outs = files.map(() => path.join(tmp, `run-${n++}`));
      const cpu0 = childrenCpu();
      const t0 = process.hrtime.bigint();
      const codes = await Promise.all(
        files.map((file, i) => gitgoodAsync(bin, ["run", file, "--repo", repo, "--agent", agent, "--jobs", String(jobs), "--out", outs[i], "--json", "--allow-errors"], env)),
      );
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      const cpu = childrenCpu() - cpu0;
      let attempts = 0;
      for (const out of outs) {
        const results = path.join(out, "results.jsonl");
        attempts += existsSync(results) ? readFileSync(results, "utf8").split("\n").filter(Boolean).length : 0;
        rmSync(out, { recursive: true, force: true });
      }
      for (const code of codes) if (code !== 0) process.stderr.write(`  (${agent} --jobs ${jobs}: exit ${code})\n`);
      return { wall, cpu, attempts };
    };

    // times[bin][agent][what] = [{ wall, cpu, attempts }], what = a jobs count, "floor" or "fixed"
    const times = new Map();
    const loads = [];
    const add = (bin, agent, what, t) => {
      const byAgent = times.get(bin) ?? new Map();
      times.set(bin, byAgent);
      const byWhat = byAgent.get(agent) ?? new Map();
      byAgent.set(agent, byWhat);
      byWhat.set(what, [...(byWhat.get(what) ?? []), t]);
    };
    for (let round = 0; round < RUNS; round++) {
      const order = JOBS.map((_, i) => JOBS[(i + round) % JOBS.length]);
      loads.push(load());
      for (const agent of AGENTS) {
        const steps = [...order.map((j) => ["jobs", j]), ["floor", 1], ["fixed", 1]];
        for (const [what, jobs] of round % 2 ? [...steps].reverse() : steps) {
          for (const bin of args.bins) {
            const files = what === "jobs" ? [drawn] : what === "floor" ? halves : [none];
            add(bin, agent, what === "jobs" ? jobs : what, await timed(bin, agent, jobs, files));
          }
        }
      }
      process.stderr.write(`round ${round + 1}/${RUNS} done (load average ${load()})\n`);
    }
    loads.push(load());
    const machine = await spawnScaling();
    const starts = new Map();
    for (const agent of AGENTS) {
      const out = path.join(tmp, `count-${agent}`);
      const counted = countStarts(process.execPath, [OWN_BIN, "run", drawn, "--repo", repo, "--agent", agent, "--jobs", "1", "--out", out, "--json", "--allow-errors"], env);
      starts.set(agent, counted);
      rmSync(out, { recursive: true, force: true });
    }

    const lines = [`run --jobs ${JOBS.join("/")}: ${chosen.length} samples, medians of ${RUNS} rounds, ${cores} cores; load average ${loads.join(" -> ")}`];
    const med = (list, f) => median(list.map(f));
    for (const bin of args.bins) {
      if (args.bins.length > 1) lines.push(`build ${bin}`);
      for (const agent of AGENTS) {
        const byWhat = times.get(bin).get(agent);
        const one = byWhat.get(1) ?? byWhat.get(JOBS[0]);
        const attempts = one[0].attempts;
        const fixed = byWhat.get("fixed");
        const fixedWall = med(fixed, (t) => t.wall);
        const fixedCpu = med(fixed, (t) => t.cpu);
        const cells = JOBS.map((j) => {
          const runs = byWhat.get(j);
          return {
            j,
            wall: med(runs, (t) => t.wall),
            cpu: med(runs, (t) => t.cpu / Math.max(1, t.attempts)),
            attemptCpu: med(runs, (t) => (t.cpu - fixedCpu) / Math.max(1, t.attempts)),
            busy: med(runs, (t) => t.cpu / t.wall),
          };
        });
        const base = cells[0].wall;
        lines.push(
          `  ${agent} (${attempts} attempts); fixed cost (no samples): ${fixedWall.toFixed(1)} s wall, ${fixedCpu.toFixed(2)} s CPU = ${((100 * fixedWall) / base).toFixed(0)} % of --jobs ${cells[0].j}`,
          ...cells.map(
            (c) =>
              `    --jobs ${c.j}: ${c.wall.toFixed(1).padStart(7)} s  speed-up x${(base / c.wall).toFixed(2)}   CPU ${c.cpu.toFixed(2)} s per attempt (${c.attemptCpu.toFixed(2)} s without the fixed cost), ${c.busy.toFixed(2)} cores busy`,
          ),
        );
        const floor = byWhat.get("floor");
        lines.push(`    floor, two --jobs 1 processes on halves at once: ${med(floor, (t) => t.wall).toFixed(1).padStart(5)} s   CPU ${med(floor, (t) => t.cpu / Math.max(1, t.attempts)).toFixed(2)} s per attempt`);
        if (byWhat.has(1) && byWhat.has(2)) {
          const pairs = byWhat.get(2).map((t, i) => t.wall / byWhat.get(1)[i].wall);
          const ratio = median(pairs);
          const floorRatio = median(byWhat.get(2).map((t, i) => t.wall / floor[i].wall));
          const cpuBound = median(byWhat.get(2).map((t, i) => t.cpu / cores / byWhat.get(1)[i].wall));
          lines.push(
            `    --jobs 2 / --jobs 1: x${ratio.toFixed(2)} (pairs ${pairs.map((p) => p.toFixed(2)).join(", ")})   goal <= ${GOAL}: ${ratio <= GOAL ? "met" : "missed"}`,
            `    --jobs 2 / two-process floor: x${floorRatio.toFixed(2)} (goal <= ${FLOOR_GOAL}: ${floorRatio <= FLOOR_GOAL ? "met" : "missed"})   CPU bound of --jobs 2 / --jobs 1 (its CPU over ${cores} cores): x${cpuBound.toFixed(2)}`,
          );
          const counted = starts.get(agent);
          if (bin === OWN_BIN && counted !== null) {
            const perAttempt = counted / Math.max(1, attempts);
            const share = (perAttempt * machine.spawn.msEach) / 1000 / (base / Math.max(1, attempts));
            lines.push(`    programs started per attempt (strace, --jobs 1): ${perAttempt.toFixed(1)}; at the machine's ${machine.spawn.msEach.toFixed(1)} ms a start, ${(100 * share).toFixed(0)} % of --jobs 1's wall time`);
          }
          if (bin === OWN_BIN) {
            const curve = cells.map((c) => `${c.j}: ${c.wall.toFixed(1)} s`).join(", ");
            row(`run --jobs 2 / --jobs 1, ${agent} (${curve}; floor x${(med(floor, (t) => t.wall) / base).toFixed(2)}, CPU bound x${cpuBound.toFixed(2)})`, `<= ${GOAL}`, `${ratio.toFixed(2)}x`, ratio <= GOAL);
            row(`run --jobs 2 / two --jobs 1 processes on halves at once, ${agent}`, `<= ${FLOOR_GOAL}`, `${floorRatio.toFixed(2)}x`, floorRatio <= FLOOR_GOAL);
          }
        }
      }
    }
    lines.push(...machineLines(machine));
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
