// Benchmark: set-up time of one scenario on a repository of about 10,000 commits.
// Builds its own repository with `git fast-import` in a temporary directory, then measures, on the
// same commit, the floor (a bare `git worktree add` + checkout), a `git clone --shared` + checkout
// for comparison, and gitgood's set-up of an MCR, an IR and an ICC scenario. Prints medians and the
// ratio to the floor. Run with `npm run bench:setup` (it builds dist/ first).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setupScenario } from "../dist/scenarios/index.js";

const COMMITS = 10_000;
const FILES = 1_000;
const LINES = 30;
const RUNS = Number(process.env.BENCH_RUNS ?? 15);

const env = {
  ...process.env,
  LC_ALL: "C",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: os.devNull,
  GIT_AUTHOR_NAME: "Bench",
  GIT_AUTHOR_EMAIL: "bench@example.com",
  GIT_COMMITTER_NAME: "Bench",
  GIT_COMMITTER_EMAIL: "bench@example.com",
};

function git(cwd, args, input) {
  return execFileSync("git", args, { cwd, env, input, encoding: "utf8", maxBuffer: 1 << 30 }).trim();
}

/** A fast-import stream: 1,000 files, then one-line changes, a conflicting merge and a 4-commit chain at the end. */
function importStream() {
  const files = Array.from({ length: FILES }, () => Array.from({ length: LINES }, (_, j) => `line ${j}`));
  const out = [];
  let mark = 0;
  let time = 1_700_000_000;
  const data = (text) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const name = (i) => `src/m${String(i).padStart(4, "0")}.py`;
  const commit = (ref, msg, changes, extra = "") => {
    mark++;
    time += 60;
    out.push(`commit ${ref}\nmark :${mark}\ncommitter Bench <bench@example.com> ${time} +0000\n${data(msg)}${extra}`);
    for (const [file, text] of changes) out.push(`M 100644 inline ${file}\n${data(text)}`);
    return mark;
  };
  const text = (i) => `${files[i].join("\n")}\n`;
  commit("refs/heads/main", "initial", [...files.map((_, i) => [name(i), text(i)]), ["conflict.py", "base\n"]]);
  const regular = COMMITS - 8;
  for (let c = 1; c < regular; c++) {
    const f = c % FILES;
    files[f][c % LINES] = `value ${c}`;
    commit("refs/heads/main", `change ${c}`, [[name(f), text(f)]]);
  }
  const fork = mark;
  const feature = commit("refs/heads/feature", "feature side", [["conflict.py", "feature\n"]], `from :${fork}\n`);
  const main = commit("refs/heads/main", "main side", [["conflict.py", "main\n"]], `from :${fork}\n`);
  commit("refs/heads/main", "merge feature", [["conflict.py", "main and feature\n"]], `from :${main}\nmerge :${feature}\n`);
  for (let k = 0; k < 4; k++) {
    files[1][k * 7] = `chain ${k}`;
    commit("refs/heads/main", `chain step ${k}`, [[name(1), text(1)]]);
  }
  return out.join("");
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

async function time(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const common = {
  name: "bench/repo",
  default_branch: "main",
  license: "MIT",
  stargazers: 0,
  created_at: null,
  topics: null,
  programming_language: "Python",
  project_size: "small",
};

async function main() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-setup-"));
  process.env.GITGOOD_SANDBOX_ROOT = path.join(tmp, "sandboxes");
  try {
    const repo = path.join(tmp, "repo");
    git(tmp, ["init", "-q", "-b", "main", repo]);
    git(repo, ["config", "gc.auto", "0"]);
    const t0 = Date.now();
    git(repo, ["fast-import", "--quiet"], importStream());
    git(repo, ["checkout", "-q", "-f", "main"]);
    const count = git(repo, ["rev-list", "--count", "--all"]);
    process.stderr.write(`built ${count} commits, ${FILES + 1} files in ${Date.now() - t0} ms\n`);

    const [merge, p1, p2] = git(repo, ["rev-list", "--parents", "-n", "1", "main~4"]).split(" ");
    const chain = git(repo, ["rev-list", "-n", "4", "main"]).split("\n");
    const mergeSample = {
      ...common,
      id: "bench_repo_merge_0000",
      sample_type: "merge",
      difficulty: "easy",
      scenario: {
        merge_commit_hash: merge,
        parents: [p1, p2],
        number_of_files_with_merge_conflict: 1,
        total_number_of_merge_conflicts: 1,
        files_in_merge_conflict: ["conflict.py"],
      },
    };
    const chainSample = {
      ...common,
      id: "bench_repo_file_commit_chain_0000",
      sample_type: "file_commit_chain",
      difficulty: "easy",
      scenario: {
        file: "src/m0001.py",
        branch: "main",
        times_seen_consecutively: 4,
        purity: 1,
        newest_commit: chain[0],
        oldest_commit: chain[3],
        contains_non_pl_files: false,
      },
    };

    const results = { floor: [], cloneShared: [], mcr: [], ir: [], icc: [] };
    for (let i = 0; i < RUNS; i++) {
      const wt = path.join(tmp, `wt-${i}`);
      results.floor.push(await time(() => git(repo, ["worktree", "add", "-q", "--detach", wt, p1])));
      git(repo, ["worktree", "remove", "--force", wt]);
      const cl = path.join(tmp, `clone-${i}`);
      results.cloneShared.push(
        await time(() => {
          git(tmp, ["clone", "-q", "--shared", "--no-checkout", repo, cl]);
          git(cl, ["checkout", "-q", "--detach", p1]);
        }),
      );
      rmSync(cl, { recursive: true, force: true });
      for (const [key, sample, kind] of [["mcr", mergeSample, "mcr"], ["ir", chainSample, "ir"], ["icc", chainSample, "icc"]]) {
        let scenario;
        results[key].push(await time(async () => (scenario = await setupScenario(sample, repo, { kind }))));
        scenario.close();
      }
    }
    const floor = median(results.floor);
    const row = (label, key) => {
      const m = median(results[key]);
      return `${label.padEnd(44)} ${m.toFixed(1).padStart(8)} ms   x${(m / floor).toFixed(2)}`;
    };
    process.stdout.write(
      [
        `set-up of one scenario, ${count} commits, ${FILES + 1} files, median of ${RUNS} runs (ratio to the floor)`,
        row("floor: git worktree add + checkout", "floor"),
        row("git clone --shared --no-checkout + checkout", "cloneShared"),
        row("gitgood MCR set-up (checkout + merge)", "mcr"),
        row("gitgood IR set-up (checkout + paused rebase)", "ir"),
        row("gitgood ICC set-up (checkout + reset)", "icc"),
        "",
      ].join("\n"),
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
