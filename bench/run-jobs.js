// Benchmark: `gitgood run --jobs 1/2/4` on the same samples, for a baseline and the oracle.
//
//   npm run bench:run-jobs                                 a synthetic repository, mined here
//   npm run bench:run-jobs -- REPO SAMPLES.jsonl           a repository of your own and its samples
//   npm run bench:run-jobs -- REPO SAMPLES.jsonl --bin OTHER/bin/gitgood.js
//                                                          also another build, alternated with this one
//
// Every run is a fresh run directory (nothing resumed) of `gitgood run SAMPLES --agent A --jobs J`, in its
// own process. The jobs counts are alternated within each round (and their order turned from round to
// round) so that the machine's load hits every count alike. Prints, per agent and build: the median wall
// time per jobs count, the scaling curve (wall of --jobs 1 / wall of --jobs J), the median of the paired
// ratios `--jobs 2` / `--jobs 1` against the goal (<= 0.6 on two idle cores), and the CPU per attempt
// (user + system of the run and every process it started). The load average is printed beside each round.
// BENCH_RUNS rounds (default 3), BENCH_SAMPLES samples spread over the samples file (default 12),
// BENCH_JOBS the counts (default 1,2,4), BENCH_AGENTS the agents (default baseline,oracle).
import { row } from "./rows.js";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildSyntheticRepo } from "./synthetic-repo.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 12);
const JOBS = (process.env.BENCH_JOBS ?? "1,2,4").split(",").map(Number);
const AGENTS = (process.env.BENCH_AGENTS ?? "baseline,oracle").split(",");
const GOAL = 0.6;
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
    process.stderr.write(`${chosen.length} of ${all.length} samples from ${repo}; ${RUNS} rounds of --jobs ${JOBS.join("/")}; ${os.availableParallelism()} cores\n`);

    // times[bin][agent][jobs] = [{ wall, cpu, attempts }]
    const times = new Map();
    const loads = [];
    let n = 0;
    for (let round = 0; round < RUNS; round++) {
      const order = JOBS.map((_, i) => JOBS[(i + round) % JOBS.length]);
      loads.push(load());
      for (const agent of AGENTS) {
        for (const jobs of round % 2 ? [...order].reverse() : order) {
          for (const bin of args.bins) {
            const out = path.join(tmp, `run-${n++}`);
            const cpu0 = childrenCpu();
            const t0 = process.hrtime.bigint();
            const r = gitgood(bin, ["run", drawn, "--repo", repo, "--agent", agent, "--jobs", String(jobs), "--out", out, "--json", "--allow-errors"], env);
            const wall = Number(process.hrtime.bigint() - t0) / 1e9;
            const cpu = childrenCpu() - cpu0;
            const attempts = readFileSync(path.join(out, "results.jsonl"), "utf8").split("\n").filter(Boolean).length;
            rmSync(out, { recursive: true, force: true });
            if (r.status !== 0) process.stderr.write(`  (${agent} --jobs ${jobs}: exit ${r.status})\n`);
            const byAgent = times.get(bin) ?? new Map();
            times.set(bin, byAgent);
            const byJobs = byAgent.get(agent) ?? new Map();
            byAgent.set(agent, byJobs);
            byJobs.set(jobs, [...(byJobs.get(jobs) ?? []), { wall, cpu, attempts }]);
          }
        }
      }
      process.stderr.write(`round ${round + 1}/${RUNS} done (load average ${load()})\n`);
    }
    loads.push(load());

    const lines = [`run --jobs ${JOBS.join("/")}: ${chosen.length} samples, medians of ${RUNS} rounds; load average ${loads.join(" -> ")}`];
    for (const bin of args.bins) {
      if (args.bins.length > 1) lines.push(`build ${bin}`);
      for (const agent of AGENTS) {
        const byJobs = times.get(bin).get(agent);
        const one = byJobs.get(1) ?? byJobs.get(JOBS[0]);
        const attempts = one[0].attempts;
        const cells = JOBS.map((j) => {
          const wall = median(byJobs.get(j).map((t) => t.wall));
          const cpu = median(byJobs.get(j).map((t) => t.cpu / Math.max(1, t.attempts)));
          return { j, wall, cpu };
        });
        const base = cells[0].wall;
        lines.push(
          `  ${agent} (${attempts} attempts)`,
          ...cells.map((c) => `    --jobs ${c.j}: ${c.wall.toFixed(1).padStart(7)} s  speed-up x${(base / c.wall).toFixed(2)}   CPU ${c.cpu.toFixed(2)} s per attempt`),
        );
        if (byJobs.has(1) && byJobs.has(2)) {
          const pairs = byJobs.get(2).map((t, i) => t.wall / byJobs.get(1)[i].wall);
          const ratio = median(pairs);
          lines.push(`    --jobs 2 / --jobs 1: x${ratio.toFixed(2)} (pairs ${pairs.map((p) => p.toFixed(2)).join(", ")})   goal <= ${GOAL}: ${ratio <= GOAL ? "met" : "missed"}`);
          if (bin === OWN_BIN) {
            const curve = cells.map((c) => `${c.j}: ${c.wall.toFixed(1)} s`).join(", ");
            row(`run --jobs 2 / --jobs 1, ${agent} (${curve})`, `<= ${GOAL}`, `${ratio.toFixed(2)}x`, ratio <= GOAL);
          }
        }
      }
    }
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
