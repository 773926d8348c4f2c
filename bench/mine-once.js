// One mining run in its own process, so its peak memory is its own: prints one JSON line.
// Usage: node bench/mine-once.js REPO JOBS   (after `npm run build`)
import { performance } from "node:perf_hooks";
import { mine } from "../dist/mining/mine.js";

const [repo, jobs] = process.argv.slice(2);
const t = performance.now();
const result = await mine(repo, { jobs: Number(jobs) });
const ms = performance.now() - t;
const s = result.summary;
console.log(
  JSON.stringify({
    ms,
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    // CPU of the mining process itself (git's own is not in it): what gitgood adds to the git passes.
    cpuMs: Math.round((process.cpuUsage().user + process.cpuUsage().system) / 1000),
    commits: s.commits,
    branches: s.branches,
    merges: s.samples.merge.total,
    chains: s.samples.file_commit_chain.total,
    unreadable: s.unreadable_commits,
  }),
);
