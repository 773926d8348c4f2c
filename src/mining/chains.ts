import type { ChainScenario, Difficulty } from "../dataset/sample.js";
import type { Branch } from "../git/history.js";
import type { CommitGraph } from "../git/commitgraph.js";
import type { DropCounter } from "./drops.js";
import { byCodeUnits } from "./merges.js";
import { chainDifficulty, roundedRatio, type DifficultyThresholds } from "./purity.js";
import type { CommitSummaries, PathTable } from "./summaries.js";
import { at } from "../util/at.js";
import { committedAt, inWindow, type DateWindow } from "./window.js";

export interface ChainFinding {
  /** Committer time of the oldest commit, for a stable chronological order. */
  time: number;
  scenario: ChainScenario;
  difficulty: Difficulty;
}

interface ChainMiningOptions {
  /** Only chains whose newest commit was committed in it. */
  window: DateWindow;
  minChain: number;
  maxChain: number;
  minPurity: number;
  thresholds: DifficultyThresholds;
}

interface Run {
  /** Commits of the run (numbers in the graph), newest first. */
  commits: number[];
  /** The branch whose own line holds the run; null on a merged side line (decided afterwards). */
  branch: string | null;
  /** The run ended at a commit we could not see past (shallow boundary, unreadable commit). */
  cutBy?: "shallow" | "missing_objects";
}

/** Where a line of history starts: a branch tip (with the branch's name) or a non-first parent of a merge. */
interface LineStart {
  commit: number;
  branch: string | null;
}

/** What the chain walks read: the graph, each commit's summary, the paths they name, the branches. */
export interface ChainHistory {
  graph: CommitGraph;
  summaries: CommitSummaries;
  paths: PathTable;
  branches: readonly Branch[];
  /** Commits at the edge of a shallow clone (their history is cut), by number: 1 for each. */
  shallowBoundary?: Uint8Array;
}

/**
 * Finds file-commit chains on every line of the history: a line starts at each branch tip and at each
 * non-first parent of a merge (a merged side branch, deleted or not) and follows first parents. A chain
 * is a maximal run of consecutive non-merge commits on a line that all add or modify the same file.
 * Branch lines come first, in ref-name order, then side lines; a walk stops once it joins history an
 * earlier walk covered and no run of its own is still open, so shared history is read once. A run on a
 * branch's own line is credited to the first branch that holds it there; a run on a side line to the
 * first branch in ref order whose history contains its newest commit. One sample per
 * (oldest, newest, file).
 */
export function mineChains(history: ChainHistory, opts: ChainMiningOptions, drops: DropCounter): ChainFinding[] {
  const { graph, summaries, paths } = history;
  const seen = new Set<string>();
  const findings: ChainFinding[] = [];
  /** Findings on side lines with their newest commit, to be credited to a branch once all are known. */
  const unowned: { finding: ChainFinding; newest: number }[] = [];

  const close = (file: number, run: Run): void => {
    const commits = run.commits;
    const oldest = at(commits, commits.length - 1);
    const newest = at(commits, 0);
    // A single change is not a chain candidate, and it is not remembered: most runs are single changes.
    if (commits.length < 2) return;
    const key = `${oldest} ${newest} ${file}`;
    if (seen.has(key)) return;
    seen.add(key);
    if (!inWindow(opts.window, graph.time(newest))) return drops.chain("outside_dates");
    if (run.cutBy) return drops.chain(run.cutBy);
    if (commits.length < opts.minChain) return drops.chain("too_short");
    if (commits.length > opts.maxChain) return drops.chain("too_long");
    if (summaries.adds(oldest, file)) return drops.chain("file_added");
    let fileLines = 0;
    let allLines = 0;
    const others = new Set<number>();
    for (const c of commits) {
      const lines = summaries.lines.get(c);
      if (!lines) continue;
      fileLines += lines.perFile.get(file) ?? 0;
      allLines += lines.total;
      for (const o of lines.otherFiles) others.add(o);
    }
    if (allLines === 0) return drops.chain("no_line_changes");
    const purity = roundedRatio(fileLines, allLines);
    if (purity < opts.minPurity) return drops.chain("impure");
    const nonPl = [...others].map((o) => paths.name(o)).sort(byCodeUnits);
    const scenario: ChainScenario = {
      file: paths.name(file),
      branch: run.branch ?? "",
      times_seen_consecutively: commits.length,
      purity,
      newest_commit: graph.oid(newest),
      oldest_commit: graph.oid(oldest),
      contains_non_pl_files: nonPl.length > 0,
    };
    if (nonPl.length > 0) scenario.non_pl_files = nonPl;
    scenario.committed_at = committedAt(graph.time(newest));
    const finding = { time: graph.time(oldest), scenario, difficulty: chainDifficulty(purity, opts.thresholds) };
    findings.push(finding);
    if (run.branch === null) unowned.push({ finding, newest });
  };

  walkLines(history, close);
  if (unowned.length > 0) {
    const owners = firstContainingBranch(graph, history.branches, new Set(unowned.map((u) => u.newest)));
    for (const u of unowned) u.finding.scenario.branch = owners.get(u.newest) ?? "";
  }
  findings.sort(
    (a, b) =>
      a.time - b.time ||
      byCodeUnits(a.scenario.oldest_commit, b.scenario.oldest_commit) ||
      byCodeUnits(a.scenario.newest_commit, b.scenario.newest_commit) ||
      byCodeUnits(a.scenario.file, b.scenario.file),
  );
  return findings;
}

/**
 * Walks every line of history (branch tips in the given order, then non-first parents of merges) and
 * hands each run to `close` as it ends: the runs mineChains judges, in the order it judges them.
 */
function walkLines(history: ChainHistory, close: (file: number, run: Run) => void): void {
  const { graph, summaries } = history;
  const shallow = history.shallowBoundary;
  const visited = new Uint8Array(graph.size);
  const starts: LineStart[] = history.branches.map((b) => ({ commit: graph.index(b.oid), branch: b.name }));
  for (let i = 0; i < graph.size; i++) {
    for (let k = 1; k < graph.parentCount(i); k++) starts.push({ commit: graph.parent(i, k), branch: null });
  }

  const open = new Map<number, Run>();
  const closeAll = (cutBy?: Run["cutBy"]): void => {
    for (const [file, run] of open) {
      if (cutBy) run.cutBy = cutBy;
      close(file, run);
    }
    open.clear();
  };
  for (const start of starts) {
    let joined = false;
    let commit = start.commit;
    while (commit !== -1) {
      if (!graph.has(commit)) {
        closeAll("shallow");
        break;
      }
      // Runs may start on this walk's own commits and on the first commit it shares with an earlier
      // walk (above it the lines differ); below that, only runs already open are followed.
      const mayOpen = !joined;
      if (visited[commit] === 1) {
        if (joined && open.size === 0) break;
        joined = true;
      } else visited[commit] = 1;
      if (graph.parentCount(commit) > 1) {
        closeAll();
      } else if (summaries.unreadable(commit)) {
        closeAll("missing_objects");
      } else {
        const n = summaries.fileCount(commit);
        // Most commits change a few files; scanning their list is then as fast as a set.
        let set: Set<number> | null = null;
        if (n > 8) {
          set = new Set();
          for (let k = 0; k < n; k++) set.add(summaries.file(commit, k));
        }
        for (const [file, run] of open) {
          let changes = false;
          if (set) changes = set.has(file);
          else for (let k = 0; k < n && !changes; k++) changes = summaries.file(commit, k) === file;
          if (!changes) {
            open.delete(file);
            close(file, run);
          }
        }
        for (let k = 0; k < n; k++) {
          const file = summaries.file(commit, k);
          const run = open.get(file);
          if (run) run.commits.push(commit);
          else if (mayOpen) open.set(file, { commits: [commit], branch: start.branch });
        }
      }
      const first = graph.parent(commit, 0);
      if (shallow?.[commit] === 1 || (first !== -1 && !graph.has(first))) {
        // History was cut away by a shallow clone: the open runs' true length is unknown.
        closeAll("shallow");
        break;
      }
      commit = first;
    }
    closeAll();
  }
}

/**
 * The commits whose line counts decide something: those of every run long enough and short enough to
 * be a chain, not cut, whose file the oldest commit does not add. Only their purity is left to judge,
 * so only they need `git diff-tree --numstat`; every other drop is decided by the trees alone.
 */
export function chainCandidates(history: ChainHistory, opts: ChainMiningOptions): Set<number> {
  const wanted = new Set<number>();
  walkLines(history, (file, run) => {
    const n = run.commits.length;
    if (n < 2 || run.cutBy || n < opts.minChain || n > opts.maxChain) return;
    if (history.summaries.adds(at(run.commits, n - 1), file)) return;
    for (const c of run.commits) wanted.add(c);
  });
  return wanted;
}

/**
 * For each wanted commit, the first branch (in the given ref order) whose history contains it. Each
 * branch's history is walked over what earlier branches did not reach, so the graph is walked once.
 */
function firstContainingBranch(graph: CommitGraph, branches: readonly Branch[], wanted: ReadonlySet<number>): Map<number, string> {
  const owners = new Map<number, string>();
  // Parents outside the graph have no parents of their own and are never wanted: they are left out.
  const reached = new Uint8Array(graph.size);
  for (const branch of branches) {
    const tip = graph.index(branch.oid);
    const stack = graph.has(tip) ? [tip] : [];
    while (stack.length > 0 && owners.size < wanted.size) {
      const c = stack.pop() as number;
      if (reached[c] === 1) continue;
      reached[c] = 1;
      if (wanted.has(c)) owners.set(c, branch.name);
      for (let k = 0; k < graph.parentCount(c); k++) {
        const p = graph.parent(c, k);
        if (graph.has(p) && reached[p] !== 1) stack.push(p);
      }
    }
    if (owners.size === wanted.size) break;
  }
  return owners;
}
