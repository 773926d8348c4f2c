// Benchmark: set-up time of gitgood's answer-free sandboxes against floors measured in the same run.
//
//   npm run bench:setup                           the synthetic repository (10,000 commits, 10,000 files)
//   npm run bench:setup -- REPO [SAMPLES.jsonl]   a repository of your own (mined unless samples are given)
//
// Each run measures, interleaved so that the machine's load hits every row alike: the floor (`git worktree
// add` of a merge's first parent, which checks out every file), `git clone --shared` + checkout, and
// gitgood's MCR, IR and ICC set-up with a tool-only and a full work tree, each cold (the packs built for
// this set-up) and warm (the packs taken from the run's cache, as a starting point's second sandbox gets
// them: IR after ICC of the same chain, a scenario run again). Then the cost of the history depth. Prints
// medians, each row's paired ratio to the floor (the median over runs of set-up / floor of that run) and the
// load averages at the start and end. The source repository is opened once with its long-lived reader, as a
// run opens it (RepoPool), so its probe and reader are not counted in every set-up. BENCH_RUNS (default 9) runs; BENCH_COMMITS and BENCH_FILES size the
// synthetic repository. Run with `npm run bench:setup` (it builds dist/ first).
import { row as benchRow } from "./rows.js";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PackCache } from "../dist/git/packs.js";
import { RepoPool } from "../dist/git/repo-pool.js";
import { mine } from "../dist/mining/mine.js";
import { setupScenario } from "../dist/scenarios/index.js";
import { buildSyntheticRepo } from "./synthetic-repo.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const COMMITS = Number(process.env.BENCH_COMMITS ?? 10_000);
const FILES = Number(process.env.BENCH_FILES ?? 10_000);
const DEPTHS = [1, 10, 50, 200, "full"];
const DEPTH_RUNS = Math.min(RUNS, Number(process.env.BENCH_DEPTH_RUNS ?? 5));

const env = { ...process.env, LC_ALL: "C", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: os.devNull };

function git(cwd, args) {
  return execFileSync("git", args, { cwd, env, encoding: "utf8", maxBuffer: 1 << 30 }).trim();
}

/** The machine's load averages (1, 5, 15 minutes), as `uptime` shows them: other work on the machine slows every row. */
function uptime() {
  return os.loadavg().map((l) => l.toFixed(2)).join(", ");
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

async function time(fn) {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

/** Up to `n` items spread over the list. */
function spread(items, n) {
  if (items.length <= n) return items;
  return Array.from({ length: n }, (_, i) => items[Math.floor(((i + 0.5) * items.length) / n)]);
}

function packBytes(workDir) {
  const dir = path.join(workDir, ".git", "objects", "pack");
  return readdirSync(dir).reduce((sum, f) => sum + statSync(path.join(dir, f)).size, 0);
}

async function samplesOf(repo, samplesFile) {
  if (samplesFile) return readFileSync(samplesFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  return (await mine({ repoPath: repo, name: "bench/repo" })).samples;
}

async function main() {
  const [repoArg, samplesFile] = process.argv.slice(2);
  const tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-setup-"));
  process.env.GITGOOD_SANDBOX_ROOT = path.join(tmp, "sandboxes");
  try {
    let repo = repoArg ? path.resolve(repoArg) : path.join(tmp, "repo");
    if (!repoArg) {
      const t0 = Date.now();
      await buildSyntheticRepo(repo, { commits: COMMITS, files: FILES });
      process.stderr.write(`built the synthetic repository (${COMMITS} commits, ${FILES} files) in ${Date.now() - t0} ms\n`);
    }
    const all = await samplesOf(repo, samplesFile);
    const merges = spread(all.filter((s) => s.sample_type === "merge"), RUNS);
    const chains = spread(all.filter((s) => s.sample_type === "file_commit_chain"), RUNS);
    if (merges.length === 0 || chains.length === 0) throw new Error(`${repo} gives no merge or no chain sample to set up`);
    const commits = git(repo, ["rev-list", "--all", "--count"]);
    const files = git(repo, ["ls-tree", "-r", "--name-only", merges[0].scenario.parents[0]]).split("\n").length;
    process.stderr.write(`${all.length} samples; setting up ${merges.length} merges and ${chains.length} chains, ${RUNS} runs\n`);

    // A run opens each source repository once, with its long-lived reader (RepoPool): so does the bench.
    const loadBefore = uptime();
    const sources = new RepoPool();
    const source = await sources.get(repo);
    const rows = new Map();
    const add = (key, ms) => rows.set(key, [...(rows.get(key) ?? []), ms]);
    const setUp = async (sample, scenario, opts) => {
      const { ms, value } = await time(() => setupScenario(sample, source, { scenario, ...opts }));
      value.close();
      return ms;
    };
    for (let i = 0; i < RUNS; i++) {
      const merge = merges[i % merges.length];
      const chain = chains[i % chains.length];
      const p1 = merge.scenario.parents[0];
      const wt = path.join(tmp, `wt-${i}`);
      add("floor", (await time(() => git(repo, ["worktree", "add", "-q", "--detach", wt, p1]))).ms);
      git(repo, ["worktree", "remove", "--force", wt]);
      const cl = path.join(tmp, `clone-${i}`);
      add(
        "clone",
        (
          await time(() => {
            git(tmp, ["clone", "-q", "--shared", "--no-checkout", repo, cl]);
            git(cl, ["checkout", "-q", "--detach", p1]);
          })
        ).ms,
      );
      rmSync(cl, { recursive: true, force: true });
      for (const [scenario, sample] of [["MCR", merge], ["IR", chain], ["ICC", chain]]) {
        for (const workTree of ["tools", "full"]) {
          const cacheDir = mkdtempSync(path.join(tmp, "packs-"));
          const packs = new PackCache(cacheDir);
          add(`${scenario} ${workTree} cold`, await setUp(sample, scenario, { workTree, packs }));
          add(`${scenario} ${workTree} warm`, await setUp(sample, scenario, { workTree, packs }));
          rmSync(cacheDir, { recursive: true, force: true });
        }
      }
      process.stderr.write(`run ${i + 1}/${RUNS} done\n`);
    }

    const depthRows = [];
    for (const history of DEPTH_RUNS > 0 ? DEPTHS : []) {
      const ms = [];
      const bytes = [];
      const logged = [];
      for (let i = 0; i < DEPTH_RUNS; i++) {
        for (const [scenario, sample, rev] of [["MCR", merges[i % merges.length], "HEAD"], ["IR", chains[i % chains.length], "gitgood/ir"]]) {
          const { ms: took, value: s } = await time(() => setupScenario(sample, source, { scenario, history, workTree: "tools" }));
          ms.push(took);
          // A tool-only sandbox writes the .git a program would read only when one runs: write it to measure it.
          s.sandbox.writeView();
          bytes.push(packBytes(s.sandbox.workDir));
          logged.push(Number(git(s.sandbox.workDir, ["rev-list", "--count", rev])));
          s.close();
        }
      }
      depthRows.push({ history, ms: median(ms), mb: median(bytes) / 1e6, commits: median(logged) });
    }

    const floors = rows.get("floor");
    // Paired: each set-up over the floor of its own run (measured minutes apart at most, under the same load), then the median.
    const row = (label, key, goal) => {
      const m = median(rows.get(key));
      const ratio = median(rows.get(key).map((ms, i) => ms / floors[i % floors.length]));
      const verdict = goal === undefined ? "" : `   goal <= ${goal.toFixed(2)}: ${ratio <= goal ? "met" : "missed"}`;
      if (goal !== undefined) benchRow(`set-up / worktree add: ${label}`, `<= ${goal}`, `${ratio.toFixed(2)}x`, ratio <= goal);
      return `${label.padEnd(46)} ${m.toFixed(1).padStart(9)} ms   x${ratio.toFixed(2)}${verdict}`;
    };
    const lines = [
      `set-up of one scenario: ${repoArg ? repo : "synthetic repository"}, ${commits} commits, ${files} files at the first merge's parent`,
      `median of ${RUNS} runs; ratio: median of each set-up over the floor of the same run`,
      `load: ${loadBefore} at the start, ${uptime()} at the end (${os.availableParallelism()} cores)`,
      row("floor: git worktree add (checks out every file)", "floor"),
      row("git clone --shared --no-checkout + checkout", "clone"),
    ];
    for (const scenario of ["MCR", "IR", "ICC"]) {
      lines.push(
        // The goals hold for the set-up as a run pays it: a sample's first sandbox builds its packs.
        row(`${scenario} tool-only, packs built (as a run pays it)`, `${scenario} tools cold`, 0.3),
        row(`${scenario} tool-only, packs from the run's cache`, `${scenario} tools warm`),
        row(`${scenario} full work tree, packs built (as a run pays it)`, `${scenario} full cold`, 1.5),
        row(`${scenario} full work tree, packs from the run's cache`, `${scenario} full warm`),
      );
    }
    const depthTable = [
      `history depth (tool-only set-up, packs built; median over ${DEPTH_RUNS} MCR and ${DEPTH_RUNS} IR set-ups)`,
      `${"--history".padEnd(10)} ${"commits in git log".padStart(18)} ${"store MB".padStart(9)} ${"set-up ms".padStart(10)}`,
      ...depthRows.map((d) =>
        `${String(d.history).padEnd(10)} ${String(d.commits).padStart(18)} ${d.mb.toFixed(1).padStart(9)} ${d.ms.toFixed(1).padStart(10)}`,
      ),
    ];
    lines.push("", ...(depthRows.length > 0 ? depthTable : []), "");
    process.stdout.write(lines.join("\n"));
    await sources.close();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
