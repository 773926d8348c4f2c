// Benchmark: mining versus the raw git passes any miner must make, on the same repositories.
// Usage: npm run bench:mine -- [repo ...] [--runs N] [--large COMMITS] [--no-synthetic]
// Without --no-synthetic it builds a synthetic repository of about 10,000 commits and 850 merges and
// a large one (--large, default 40,000 commits and 3,400 merges); repositories given are measured too
// (a large real one, say: a clone of mockito/mockito or jenkinsci/jenkins). Each mining run is its own
// process, so its peak memory is its own; it runs with --jobs 1 against a one-core floor and with
// --jobs 2 against a two-core floor (the same raw git passes split over two processes at once).
// It also measures issue 37's log floor: the two `git log` passes (every merge's --remerge-diff, every other
// commit's --numstat) side by side, in the same round as each mining run, and prints the paired ratios (each
// run over the floor of its own round, then the median), --jobs 2 over --jobs 1, and the load averages.
// Beside the ratios it prints what stays true on a busy machine: CPU of the mining process and of its
// git processes, the processes it starts (per merge and per commit of the history), pages faulted in.
// The real histories measured so far, in one command (about 10 minutes on an idle machine):
//   npm run bench:mine -- --no-synthetic /work/.mirror/mockito+mockito/repo /work/.mirror/Netflix+Hystrix/repo \
//     /tmp/jk29 /work/.mirror/jenkinsci+jenkins/repo
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { row } from "./rows.js";
import { Repo } from "../dist/git/repo.js";
import { MissingTrees } from "../dist/git/treediff.js";

const args = process.argv.slice(2);
const valueOf = (flag, fallback) => {
  const at = args.indexOf(flag);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const runs = valueOf("--runs", 3);
const large = valueOf("--large", 40_000);
const given = args.filter((a, i) => !a.startsWith("--") && !["--runs", "--large"].includes(args[i - 1]));
const here = (name) => fileURLToPath(new URL(name, import.meta.url));

const repos = [];
let tmp = null;
if (!args.includes("--no-synthetic")) {
  tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-"));
  for (const [label, shape] of [
    ["synthetic", []],
    ["large synthetic", [String(large), String(Math.round(large * 0.085)), "200"]],
  ]) {
    const dir = path.join(tmp, label.replace(/ /g, "-"));
    const t = performance.now();
    // Built in a child process, so its memory does not count as mining's.
    const built = spawnSync(process.execPath, [here("./synthetic-repo.js"), dir, ...shape], { encoding: "utf8" });
    if (built.status !== 0) throw new Error(`building the repository failed: ${built.stderr}`);
    console.log(`${built.stdout.trim()} (${((performance.now() - t) / 1000).toFixed(1)} s)`);
    repos.push({ label, dir });
  }
}
for (const dir of given) repos.push({ label: "given", dir });

/** CPU milliseconds of the processes this one has started and waited for (Linux: /proc/self/stat). */
function childrenCpuMs() {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  // After the name: state is field 3, so cutime (16) and cstime (17) are at 13 and 14; in clock ticks of 10 ms.
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

const UNREADABLE_TREE = /unable to read tree ([0-9a-f]{40}(?:[0-9a-f]{24})?)/;

/**
 * Runs one raw git pass over `commits` (fed on stdin) and drains its output; resolves with the elapsed
 * milliseconds. Where git stops on a commit it cannot read, it goes on as the miner does: a missing
 * tree is replaced by the empty tree in a private git dir (MissingTrees, `-t` added for diff-tree) and
 * git starts again at that commit; any other stop skips the commit after the last header printed.
 */
function timedPass(repo, gitArgs, commits, missing) {
  const t = performance.now();
  const once = (rest) =>
    new Promise((resolve, reject) => {
      const diff = gitArgs[0] === "diff-tree";
      const args = diff && missing.trees.size > 0 ? [...gitArgs, "-t"] : gitArgs;
      const env = diff ? missing.env() : { ...process.env, LC_ALL: "C" };
      const child = spawn("git", args, { cwd: repo, stdio: ["pipe", "pipe", "pipe"], env });
      let last = null;
      let tail = "";
      let err = "";
      child.stdout.on("data", (chunk) => {
        const text = tail + chunk.toString("latin1");
        for (const m of text.matchAll(/(?:^|[\n\0])@?([0-9a-f]{40})(?=[\n\0])/g)) last = m[1];
        tail = text.slice(-64);
      });
      child.stderr.on("data", (chunk) => (err += chunk.toString("latin1")));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, last, err }));
      child.stdin.on("error", () => {});
      child.stdin.end(rest.map((c) => `${c}\n`).join(""));
    });
  return (async () => {
    let rest = commits;
    while (rest.length > 0) {
      const { code, last, err } = await once(rest);
      if (code === 0) break;
      const at = last === null ? -1 : rest.indexOf(last);
      const tree = UNREADABLE_TREE.exec(err)?.[1];
      const suspect = rest[at + 1];
      if (gitArgs[0] === "diff-tree" && tree && suspect && (await missing.add(tree, suspect))) {
        rest = rest.slice(at + 1);
        continue;
      }
      // Skip the commit after the last header and go on; one process per stop.
      rest = rest.slice(at + 2);
    }
    return performance.now() - t;
  })();
}

const REMERGE = ["log", "--no-walk=unsorted", "--stdin", "--remerge-diff", "-U0", "--format=@%H"];
const NUMSTAT = ["diff-tree", "--stdin", "-z", "-r", "--root", "--no-renames", "--always", "--raw", "--numstat"];

/** The lists every miner needs: merges and other commits of the branches (not timed). */
function commitLists(repo) {
  const list = (flag) =>
    spawnSync("git", ["rev-list", "--branches", "--remotes", flag], { cwd: repo, encoding: "utf8", maxBuffer: 1 << 28 })
      .stdout.split("\n")
      .filter(Boolean);
  return { merges: list("--merges"), others: list("--no-merges") };
}

/** Every other item of `xs`, from `start`. */
const half = (xs, start) => xs.filter((_, i) => i % 2 === start);

/** Runs a floor and measures its wall time and the CPU of its git processes. */
async function measured(floor) {
  const cpu = childrenCpuMs();
  const ms = await floor();
  return { ms, cpuMs: childrenCpuMs() - cpu };
}

/** The one-core floor: the re-merge pass, then the diff pass. */
async function floorOne(repo, lists, missing) {
  return measured(async () => (await timedPass(repo, REMERGE, lists.merges, missing)) + (await timedPass(repo, NUMSTAT, lists.others, missing)));
}

/** The two-core floor: the same passes split over two processes at once, each with half of both lists. */
async function floorTwo(repo, lists, missing) {
  const lane = async (start) =>
    (await timedPass(repo, REMERGE, half(lists.merges, start), missing)) + (await timedPass(repo, NUMSTAT, half(lists.others, start), missing));
  return measured(async () => {
    const t = performance.now();
    await Promise.all([lane(0), lane(1)]);
    return performance.now() - t;
  });
}

/** Runs `git` with `gitArgs` in `repo`, draining its output; resolves when it exits. */
function drained(repo, gitArgs) {
  return new Promise((resolve, reject) => {
    const child = spawn("git", gitArgs, { cwd: repo, stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, LC_ALL: "C" } });
    child.stdout.on("data", () => {});
    child.on("error", reject);
    child.on("close", resolve);
  });
}

/**
 * The log floor (issue 37): the two `git log` passes that print every merge's re-merge diff and every other
 * commit's numstat, side by side on two cores. What any miner of these samples reads, in two git processes.
 */
async function logFloor(repo) {
  return measured(async () => {
    const t = performance.now();
    await Promise.all([
      drained(repo, ["log", "--branches", "--remotes", "--merges", "--remerge-diff", "-U0", "--no-renames"]),
      drained(repo, ["log", "--branches", "--remotes", "--no-merges", "--numstat", "--no-renames"]),
    ]);
    return performance.now() - t;
  });
}

/** The median of the ratios of paired measurements: `a[i] / b[i]`, each pair taken in the same round. */
const pairedRatio = (a, b) => median(a.map((x, i) => x / b[i]));

/** One mining run in a child process. */
function mineOnce(repo, jobs) {
  const r = spawnSync(process.execPath, [here("./mine-once.js"), repo, String(jobs)], { encoding: "utf8", maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`mining ${repo} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").pop());
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;

let worst = 0;
for (const { label, dir } of repos) {
  const lists = commitLists(dir);
  const missing = new MissingTrees(await Repo.open(dir));
  const f1 = [];
  const f2 = [];
  const f3 = [];
  const one = [];
  const two = [];
  let last;
  // Each command is paired with its floor and the pairs alternate, so the machine's load hits both.
  for (let i = 0; i < runs; i++) {
    f1.push(await floorOne(dir, lists, missing));
    one.push(mineOnce(dir, 1));
    f2.push(await floorTwo(dir, lists, missing));
    last = mineOnce(dir, 2);
    two.push(last);
    f3.push(await logFloor(dir));
  }
  missing.close();
  const floor1 = median(f1.map((f) => f.ms));
  const floor2 = median(f2.map((f) => f.ms));
  const m1 = median(one.map((r) => r.ms));
  const m2 = median(two.map((r) => r.ms));
  const cpu = (rs) => median(rs.map((r) => r.cpuMs + r.gitCpuMs));
  const rss = Math.max(...one.map((r) => r.maxRssMb), ...two.map((r) => r.maxRssMb));
  worst = Math.max(worst, m1 / floor1 / 1.5, m2 / floor2 / 1.2);
  const load = os.loadavg().map((l) => l.toFixed(2)).join(", ");
  const floor3 = median(f3.map((f) => f.ms));
  const ms = (rs) => rs.map((r) => r.ms);
  const logRatio1 = pairedRatio(ms(one), f3.map((f) => f.ms));
  const logRatio2 = pairedRatio(ms(two), f3.map((f) => f.ms));
  const jobsRatio = pairedRatio(ms(two), ms(one));
  console.log(`\n${label}: ${dir} (${last.commits} commits, ${last.branches} branches; load average ${load})`);
  console.log(`  samples: ${last.merges} merge, ${last.chains} file_commit_chain${last.unreadable ? `, ${last.unreadable} unreadable commits` : ""}`);
  console.log(`  one-core floor (re-merge pass, then diff pass):  median ${secs(floor1)} over ${runs} runs, git CPU ${secs(median(f1.map((f) => f.cpuMs)))}`);
  console.log(`  gitgood mine --jobs 1:                           median ${secs(m1)}  ratio ${(m1 / floor1).toFixed(2)} (goal <= 1.5)`);
  console.log(`  two-core floor (both passes split over 2 procs): median ${secs(floor2)}, git CPU ${secs(median(f2.map((f) => f.cpuMs)))}`);
  console.log(`  gitgood mine --jobs 2:                           median ${secs(m2)}  ratio ${(m2 / floor2).toFixed(2)} (goal <= 1.2)`);
  console.log(
    `  CPU of a mining run (node + git): --jobs 1 ${secs(cpu(one))} (node ${secs(median(one.map((r) => r.cpuMs)))}), --jobs 2 ${secs(cpu(two))} (node ${secs(median(two.map((r) => r.cpuMs)))})`,
  );
  console.log(`  log floor (the two git log passes side by side):  median ${secs(floor3)}, git CPU ${secs(median(f3.map((f) => f.cpuMs)))}`);
  console.log(`  paired over the log floor: --jobs 1 ${logRatio1.toFixed(2)}, --jobs 2 ${logRatio2.toFixed(2)} (goal <= 1.2); --jobs 2 over --jobs 1 ${jobsRatio.toFixed(2)} (goal < 1)`);
  console.log(`  peak memory of a mining process: ${rss} MB (goal <= 150)`);
  const procs = (rs) => median(rs.map((r) => r.processes));
  console.log(
    `  processes a mining run starts: --jobs 1 ${procs(one)}, --jobs 2 ${procs(two)} (${lists.merges.length} merges, ${lists.others.length} other commits; ` +
      `${(procs(one) / Math.max(1, lists.merges.length)).toFixed(3)} per merge at most); pages faulted in by the mining process: ${median(one.map((r) => r.minorFaults))} (--jobs 1)`,
  );
  const name = `${label === "given" ? path.basename(dir) : label}, ${last.commits} commits`;
  row(`mining --jobs 1 / one-core floor (${name})`, "<= 1.5", `${(m1 / floor1).toFixed(2)}x`, m1 / floor1 <= 1.5);
  row(`mining --jobs 2 / two-core floor (${name})`, "<= 1.2", `${(m2 / floor2).toFixed(2)}x`, m2 / floor2 <= 1.2);
  row(`mining --jobs 2 / log floor (${name})`, "<= 1.2", `${logRatio2.toFixed(2)}x`, logRatio2 <= 1.2);
  row(`mining --jobs 2 / --jobs 1 (${name})`, "< 1", `${jobsRatio.toFixed(2)}x`, jobsRatio < 1);
  row(`mining peak RSS (${name})`, "<= 150 MB", `${rss} MB`, rss <= 150);
}
console.log(`\nworst ratio against its goal: ${worst.toFixed(2)} (<= 1 meets every goal); the machine's load average: ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`);
if (tmp) rmSync(tmp, { recursive: true, force: true });
