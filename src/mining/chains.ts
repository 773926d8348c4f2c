import type { ChainScenario, Difficulty } from "../dataset/sample.js";
import type { Branch, CommitNode } from "../git/history.js";
import type { DropCounter } from "./drops.js";
import { byCodeUnits } from "./merges.js";
import { chainDifficulty, roundedRatio, type DifficultyThresholds } from "./purity.js";
import { at } from "../util/at.js";

/**
 * What chain mining needs to know of one non-merge commit's diff against its parent: kept for every
 * commit that touches a file of a mined language, so it is kept small (interned paths, no map).
 */
export interface CommitSummary {
  /**
   * Files of a mined language the commit adds or modifies, each once (a deletion or a type change ends
   * a chain, so those are not listed).
   */
  files: readonly string[];
  /** Those of `files` the commit adds: mostly none. */
  added: readonly string[];
  /** Line counts: read only for the commits of runs that could be chains (chainCandidates). */
  lines?: CommitLines;
  /** Objects needed to diff this commit are missing (partial clone, damaged copy). */
  unreadable?: boolean;
}

export interface CommitLines {
  /** Changed lines (+ and -) over all files; binary files count 0. */
  total: number;
  /** Changed lines of each of `files`. */
  perFile: Map<string, number>;
  /** Changed files not of a mined language. */
  otherFiles: readonly string[];
}

export interface ChainFinding {
  /** Committer time of the oldest commit, for a stable chronological order. */
  time: number;
  scenario: ChainScenario;
  difficulty: Difficulty;
}

interface ChainMiningOptions {
  minChain: number;
  maxChain: number;
  minPurity: number;
  thresholds: DifficultyThresholds;
}

interface Run {
  /** Commits of the run, newest first. */
  commits: string[];
  /** The branch whose own line holds the run; null on a merged side line (decided afterwards). */
  branch: string | null;
  /** The run ended at a commit we could not see past (shallow boundary, unreadable commit). */
  cutBy?: "shallow" | "missing_objects";
}

/** Where a line of history starts: a branch tip (with the branch's name) or a non-first parent of a merge. */
interface LineStart {
  oid: string;
  branch: string | null;
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
export function mineChains(
  graph: ReadonlyMap<string, CommitNode>,
  branches: readonly Branch[],
  summaries: ReadonlyMap<string, CommitSummary>,
  opts: ChainMiningOptions,
  drops: DropCounter,
  /** Commits at the edge of a shallow clone: their history is cut. */
  shallowBoundary: ReadonlySet<string> = new Set(),
): ChainFinding[] {
  const seen = new Set<string>();
  const findings: ChainFinding[] = [];
  /** Findings on side lines, to be credited to a branch once all are known. */
  const unowned: ChainFinding[] = [];

  const close = (file: string, run: Run): void => {
    const commits = run.commits;
    const oldest = at(commits, commits.length - 1);
    const newest = at(commits, 0);
    // A single change is not a chain candidate, and it is not remembered: most runs are single changes.
    if (commits.length < 2) return;
    const key = `${oldest}\0${newest}\0${file}`;
    if (seen.has(key)) return;
    seen.add(key);
    if (run.cutBy) return drops.chain(run.cutBy);
    if (commits.length < opts.minChain) return drops.chain("too_short");
    if (commits.length > opts.maxChain) return drops.chain("too_long");
    if (summaries.get(oldest)?.added.includes(file)) return drops.chain("file_added");
    let fileLines = 0;
    let allLines = 0;
    const others = new Set<string>();
    for (const c of commits) {
      const lines = summaries.get(c)?.lines;
      if (!lines) continue;
      fileLines += lines.perFile.get(file) ?? 0;
      allLines += lines.total;
      for (const o of lines.otherFiles) others.add(o);
    }
    if (allLines === 0) return drops.chain("no_line_changes");
    const purity = roundedRatio(fileLines, allLines);
    if (purity < opts.minPurity) return drops.chain("impure");
    const nonPl = [...others].sort(byCodeUnits);
    const scenario: ChainScenario = {
      file,
      branch: run.branch ?? "",
      times_seen_consecutively: commits.length,
      purity,
      newest_commit: newest,
      oldest_commit: oldest,
      contains_non_pl_files: nonPl.length > 0,
    };
    if (nonPl.length > 0) scenario.non_pl_files = nonPl;
    const finding = { time: graph.get(oldest)?.time ?? 0, scenario, difficulty: chainDifficulty(purity, opts.thresholds) };
    findings.push(finding);
    if (run.branch === null) unowned.push(finding);
  };

  walkLines(graph, branches, summaries, shallowBoundary, close);
  if (unowned.length > 0) {
    const owners = firstContainingBranch(graph, branches, new Set(unowned.map((f) => f.scenario.newest_commit)));
    for (const f of unowned) f.scenario.branch = owners.get(f.scenario.newest_commit) ?? "";
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
function walkLines(
  graph: ReadonlyMap<string, CommitNode>,
  branches: readonly Branch[],
  summaries: ReadonlyMap<string, CommitSummary>,
  shallowBoundary: ReadonlySet<string>,
  close: (file: string, run: Run) => void,
): void {
  const visited = new Set<string>();
  const starts: LineStart[] = branches.map((b) => ({ oid: b.oid, branch: b.name }));
  for (const node of graph.values()) for (const p of node.parents.slice(1)) starts.push({ oid: p, branch: null });

  for (const start of starts) {
    const open = new Map<string, Run>();
    const closeAll = (cutBy?: Run["cutBy"]): void => {
      for (const [file, run] of open) {
        if (cutBy) run.cutBy = cutBy;
        close(file, run);
      }
      open.clear();
    };
    let joined = false;
    let commit: string | undefined = start.oid;
    while (commit !== undefined) {
      const node = graph.get(commit);
      if (!node) {
        closeAll("shallow");
        break;
      }
      // Runs may start on this walk's own commits and on the first commit it shares with an earlier
      // walk (above it the lines differ); below that, only runs already open are followed.
      const mayOpen = !joined;
      if (visited.has(commit)) {
        if (joined && open.size === 0) break;
        joined = true;
      } else visited.add(commit);
      const summary = summaries.get(commit);
      if (node.parents.length > 1) {
        closeAll();
      } else if (summary?.unreadable) {
        closeAll("missing_objects");
      } else {
        const changed = summary?.files ?? [];
        // Most commits change a few files; a list is then smaller and as fast as a set.
        const set = changed.length > 8 ? new Set(changed) : null;
        for (const [file, run] of open) {
          if (!(set ? set.has(file) : changed.includes(file))) {
            open.delete(file);
            close(file, run);
          }
        }
        for (const file of changed) {
          const run = open.get(file);
          if (run) run.commits.push(commit);
          else if (mayOpen) open.set(file, { commits: [commit], branch: start.branch });
        }
      }
      const first: string | undefined = node.parents[0];
      if (shallowBoundary.has(commit) || (first !== undefined && !graph.has(first))) {
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
export function chainCandidates(
  graph: ReadonlyMap<string, CommitNode>,
  branches: readonly Branch[],
  summaries: ReadonlyMap<string, CommitSummary>,
  opts: ChainMiningOptions,
  shallowBoundary: ReadonlySet<string> = new Set(),
): Set<string> {
  const wanted = new Set<string>();
  walkLines(graph, branches, summaries, shallowBoundary, (file, run) => {
    const n = run.commits.length;
    if (n < 2 || run.cutBy || n < opts.minChain || n > opts.maxChain) return;
    if (summaries.get(at(run.commits, n - 1))?.added.includes(file)) return;
    for (const c of run.commits) wanted.add(c);
  });
  return wanted;
}

/**
 * For each wanted commit, the first branch (in the given ref order) whose history contains it. Each
 * branch's history is walked over what earlier branches did not reach, so the graph is walked once.
 */
function firstContainingBranch(
  graph: ReadonlyMap<string, CommitNode>,
  branches: readonly Branch[],
  wanted: ReadonlySet<string>,
): Map<string, string> {
  const owners = new Map<string, string>();
  const reached = new Set<string>();
  for (const branch of branches) {
    const stack = [branch.oid];
    while (stack.length > 0 && owners.size < wanted.size) {
      const c = stack.pop() as string;
      if (reached.has(c)) continue;
      reached.add(c);
      if (wanted.has(c)) owners.set(c, branch.name);
      for (const p of graph.get(c)?.parents ?? []) if (!reached.has(p)) stack.push(p);
    }
    if (owners.size === wanted.size) break;
  }
  return owners;
}
