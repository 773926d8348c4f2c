// One mining run in its own process, so its peak memory is its own: prints one JSON line.
// Usage: node bench/mine-once.js REPO JOBS   (after `npm run build`)
import { readFileSync } from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { performance } from "node:perf_hooks";

// Every process mining starts goes through child_process.spawn: counted here, before mining's modules
// bind it (a builtin's named exports follow its CommonJS object after syncBuiltinESMExports).
const childProcess = createRequire(import.meta.url)("node:child_process");
const spawn = childProcess.spawn;
let processes = 0;
childProcess.spawn = function counted(...args) {
  processes++;
  return spawn.apply(this, args);
};
syncBuiltinESMExports();
const { mine } = await import("../dist/mining/mine.js");

/** CPU milliseconds of the git processes this process started and waited for (Linux: /proc/self/stat). */
function childrenCpuMs() {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    // After the name: state is field 3, so cutime (16) and cstime (17) are at 13 and 14; in clock ticks of 10 ms.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return null;
  }
}

const [repo, jobs] = process.argv.slice(2);
const t = performance.now();
const result = await mine({ repoPath: repo, jobs: Number(jobs) });
const ms = performance.now() - t;
const s = result.summary;
const usage = process.resourceUsage();
console.log(
  JSON.stringify({
    ms,
    maxRssMb: Math.round(usage.maxRSS / 1024),
    // CPU of the mining process itself (user + system): what gitgood adds to the git passes.
    cpuMs: Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000),
    // Pages the mining process faulted in: each costs time in the kernel, and more after each fork.
    minorFaults: usage.minorPageFault,
    // CPU of its git processes.
    gitCpuMs: childrenCpuMs(),
    // Processes it started.
    processes,
    commits: s.commits,
    branches: s.branches,
    merges: s.samples.merge.total,
    chains: s.samples.file_commit_chain.total,
    unreadable: s.unreadable_commits,
  }),
);
