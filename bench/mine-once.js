// One mining run in its own process, so its peak memory is its own: prints one JSON line.
// Usage: node bench/mine-once.js REPO JOBS   (after `npm run build`)
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { mine } from "../dist/mining/mine.js";

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
const result = await mine(repo, { jobs: Number(jobs) });
const ms = performance.now() - t;
const s = result.summary;
const own = process.cpuUsage();
console.log(
  JSON.stringify({
    ms,
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    // CPU of the mining process itself: what gitgood adds to the git passes.
    cpuMs: Math.round((own.user + own.system) / 1000),
    // CPU of its git processes.
    gitCpuMs: childrenCpuMs(),
    commits: s.commits,
    branches: s.branches,
    merges: s.samples.merge.total,
    chains: s.samples.file_commit_chain.total,
    unreadable: s.unreadable_commits,
  }),
);
