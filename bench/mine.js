// Benchmark: mining versus the raw git passes any miner must make, on the same repository.
// Usage: npm run bench:mine -- [repo] [--runs N]
// Without a repository it builds a synthetic one of about 10,000 commits and 850 merges.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { mine } from "../dist/mining/mine.js";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const runsAt = args.indexOf("--runs");
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 3;
const given = args.find((a, i) => !a.startsWith("--") && args[i - 1] !== "--runs");

let repo = given;
let tmp = null;
if (!repo) {
  tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-"));
  repo = path.join(tmp, "repo");
  const t = performance.now();
  // Built in a child process, so its memory does not count as mining's.
  const script = fileURLToPath(new URL("./synthetic-repo.js", import.meta.url));
  const built = spawnSync(process.execPath, [script, repo], { encoding: "utf8" });
  if (built.status !== 0) throw new Error(`building the repository failed: ${built.stderr}`);
  console.log(`${built.stdout.trim()} (${((performance.now() - t) / 1000).toFixed(1)} s)`);
}

/** Runs git and drains its output; resolves with the elapsed milliseconds. */
function timedGit(gitArgs) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn("git", gitArgs, { cwd: repo, stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, LC_ALL: "C" } });
    child.stdout.on("data", () => {});
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(performance.now() - t) : reject(new Error(`git ${gitArgs.join(" ")} exited ${code}`))));
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

const floors = [];
const mines = [];
let result;
for (let i = 0; i < runs; i++) {
  const merges = await timedGit(["log", "--all", "--merges", "--remerge-diff", "--format=%H"]);
  const numstat = await timedGit(["log", "--all", "--no-merges", "--numstat", "--format=%H"]);
  floors.push(merges + numstat);
  const t = performance.now();
  result = await mine(repo, {});
  mines.push(performance.now() - t);
}
const floor = median(floors);
const ours = median(mines);
const s = result.summary;
console.log(`repository: ${repo} (${s.commits} commits, ${s.branches} branches)`);
console.log(`samples: ${s.samples.merge.total} merge, ${s.samples.file_commit_chain.total} file_commit_chain`);
console.log(`floor (log --remerge-diff + log --numstat): median ${(floor / 1000).toFixed(2)} s over ${runs} runs`);
console.log(`gitgood mine:                               median ${(ours / 1000).toFixed(2)} s over ${runs} runs`);
console.log(`ratio mine / floor: ${(ours / floor).toFixed(2)} (goal <= 1.5)`);
console.log(`peak memory (this process): ${Math.round(process.resourceUsage().maxRSS / 1024)} MB (goal <= 300)`);
if (tmp) rmSync(tmp, { recursive: true, force: true });
