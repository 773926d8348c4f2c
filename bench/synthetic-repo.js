// Builds a deterministic repository for benchmarks with `git fast-import`: a main line with runs of
// edits to the same file (chains) and side branches merged back, a share of them conflicting.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";

/** A tiny deterministic PRNG (mulberry32), so every run builds the same repository. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Creates `dir` as a repository of about `commits` commits, `merges` of them merges (about 40 %
 * conflicting), over `files` Python files of 200 lines and a few text files.
 */
export function buildSyntheticRepo(dir, { commits = 10_000, merges = 850, files = 60, seed = 7 } = {}) {
  mkdirSync(dir, { recursive: true });
  const git = (args, input) => {
    const r = spawnSync("git", args, { cwd: dir, input, maxBuffer: 1 << 30, env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } });
    if (r.status !== 0) throw new Error(`git ${args[0]} failed: ${r.stderr}`);
    return r.stdout.toString();
  };
  git(["init", "-q", "-b", "main"]);
  git(["config", "gc.auto", "0"]);
  const rand = prng(seed);
  const pick = (n) => Math.floor(rand() * n);
  const paths = Array.from({ length: files }, (_, i) => `pkg/mod${i % 7}/file_${i}.py`);
  paths.push("README.md", "docs/notes.txt", "config/settings.yaml");
  const initial = (p) => Array.from({ length: 200 }, (_, i) => `${p.replace(/\W/g, "_")} line ${i} = ${i}`);
  let mark = 0;
  let time = 1_600_000_000;
  const chunks = [];
  const state = new Map(); // mark -> Map(path -> lines[])
  const blob = (lines) => {
    const text = `${lines.join("\n")}\n`;
    return `data ${Buffer.byteLength(text)}\n${text}\n`;
  };
  const commit = (branch, parentMarks, content, changed, message) => {
    mark++;
    time += 60;
    let s = `commit refs/heads/${branch}\nmark :${mark}\ncommitter Bench <bench@example.com> ${time} +0000\n`;
    s += `data ${Buffer.byteLength(message)}\n${message}\n`;
    if (parentMarks[0]) s += `from :${parentMarks[0]}\n`;
    if (parentMarks[1]) s += `merge :${parentMarks[1]}\n`;
    for (const p of changed) s += `M 100644 inline ${p}\n${blob(content.get(p))}`;
    chunks.push(s);
    state.set(mark, content);
    return mark;
  };
  const edit = (content, p, line, value) => {
    const next = new Map(content);
    const lines = [...next.get(p)];
    lines[line] = value;
    next.set(p, lines);
    return next;
  };
  let content = new Map(paths.map((p) => [p, initial(p)]));
  let head = commit("main", [], content, paths, "initial import");
  let made = 1;
  let merged = 0;
  const perMerge = Math.max(4, Math.floor(commits / Math.max(1, merges)));
  while (made < commits) {
    // A run on main: 1..6 edits, mostly to one file so chains appear.
    const focus = paths[pick(files)];
    const run = 1 + pick(6);
    for (let i = 0; i < run && made < commits; i++) {
      const p = rand() < 0.8 ? focus : paths[pick(paths.length)];
      content = edit(content, p, pick(200), `main edit ${made}`);
      const changed = [p];
      if (rand() < 0.3) {
        const q = paths[paths.length - 1 - pick(3)];
        content = edit(content, q, pick(200), `note ${made}`);
        changed.push(q);
      }
      head = commit("main", [head], content, changed, `main change ${made}`);
      made++;
    }
    if (merged < merges && made + perMerge < commits) {
      // A side branch from here, more work on main, then the merge.
      const base = head;
      const conflicting = rand() < 0.4;
      const target = paths[pick(files)];
      const line = pick(190);
      let side = state.get(base);
      let sideHead = base;
      const sideCommits = 1 + pick(perMerge - 2);
      for (let i = 0; i < sideCommits; i++) {
        const p = i === 0 && conflicting ? target : paths[pick(files)];
        const l = i === 0 && conflicting ? line : pick(200);
        side = edit(side, p, l, `side edit ${made}`);
        sideHead = commit(`topic/${merged % 40}`, [sideHead], side, [p], `side change ${made}`);
        made++;
      }
      if (conflicting) {
        content = edit(content, target, line, `main side of conflict ${made}`);
        head = commit("main", [head], content, [target], `main conflicting change ${made}`);
        made++;
      }
      // The recorded resolution: main's content with the side's files where only the side changed them.
      const merged_ = new Map(content);
      const changed = [];
      for (const p of paths) {
        if (side.get(p) !== state.get(base).get(p) && content.get(p) === state.get(base).get(p)) {
          merged_.set(p, side.get(p));
          changed.push(p);
        }
      }
      if (conflicting) {
        merged_.set(target, side.get(target).map((l, i) => (i === line ? `resolved ${made}` : content.get(target)[i] ?? l)));
        changed.push(target);
      }
      content = merged_;
      head = commit("main", [head, sideHead], content, changed, `Merge topic ${merged}`);
      made++;
      merged++;
    }
  }
  chunks.push("done\n");
  git(["fast-import", "--quiet", "--done"], chunks.join(""));
  git(["checkout", "-q", "-f", "main"]);
  return { commits: made, merges: merged };
}

// As a script: node bench/synthetic-repo.js DIR [commits] [merges]
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const [dir, commits, merges] = process.argv.slice(2);
  if (!dir) {
    console.error("usage: node bench/synthetic-repo.js DIR [commits] [merges]");
    process.exit(2);
  }
  const made = buildSyntheticRepo(dir, {
    commits: commits ? Number(commits) : undefined,
    merges: merges ? Number(merges) : undefined,
  });
  console.log(`built ${dir}: ${made.commits} commits, ${made.merges} merges`);
}
