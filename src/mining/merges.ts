import type { Difficulty, MergeScenario } from "../dataset/sample.js";
import type { CommitGraph } from "../git/commitgraph.js";
import { findRegions } from "../git/markers.js";
import { Remerger, type MergePair } from "../git/mergetree.js";
import type { Repo } from "../git/repo.js";
import { remergeReports } from "../git/remergediff.js";
import { remergeResolvable } from "../git/resolvable.js";
import type { DropCounter } from "./drops.js";
import type { LanguageSet } from "../dataset/languages.js";
import type { Slots } from "../util/slots.js";
import { committedAt, inWindow, type DateWindow } from "./window.js";

export interface MergeFinding {
  /** Committer time of the merge commit, for a stable chronological order. */
  time: number;
  scenario: MergeScenario;
  difficulty: Difficulty;
}

interface MergeMiningOptions {
  languages: LanguageSet;
  maxConflicts: number;
  /** Only merges committed in it (by the merge commit's committer date). */
  window: DateWindow;
  jobs: number;
  /** Shared with a pass running beside this one: the re-merge processes wait for one each. */
  slots?: Slots;
}

export function mergeDifficulty(files: number, conflicts: number): Difficulty {
  if (files > 1) return "hard";
  return conflicts > 1 ? "medium" : "easy";
}

/** What one re-merge shows: conflicted files with their marker regions, and every path of its remerge-diff. */
interface Remerge {
  commit: string;
  conflicts: ReadonlyMap<string, number>;
  changed: readonly string[];
}

/**
 * Finds merge-conflict samples: every two-parent commit of the graph is re-merged; the merge is kept
 * when every file of its remerge-diff (conflicted, or changed by the merge beyond the re-merge) is in
 * a mined language and its conflicted files hold 1..maxConflicts marker regions. A conflicted file
 * without regions (modify/delete) is neither counted nor a reason to drop. Every kept merge gets
 * `resolvable`. Results are in chronological order (ties by hash).
 */
export async function mineMerges(
  repo: Repo,
  graph: CommitGraph,
  opts: MergeMiningOptions,
  drops: DropCounter,
  /** Told how many merges the stream has re-merged, of how many. */
  progress: (done: number, total: number) => void = () => undefined,
): Promise<MergeFinding[]> {
  const merges = new Set<number>();
  for (let i = 0; i < graph.size; i++) {
    const parents = graph.parentCount(i);
    if (parents > 2) drops.merge("octopus");
    if (parents !== 2) continue;
    const [p1, p2] = [graph.parent(i, 0), graph.parent(i, 1)];
    if (!graph.has(p1) || !graph.has(p2)) {
      drops.merge("shallow");
      continue;
    }
    if (!inWindow(opts.window, graph.time(i))) {
      drops.merge("outside_dates");
      continue;
    }
    merges.add(i);
  }
  const findings: MergeFinding[] = [];
  /** Kept merges the diff could not show to be resolvable, and merges git stopped on in the stream. */
  const unsure: MergeFinding[] = [];
  const failed: MergePair[] = [];
  let done = 0;
  for await (const report of remergeReports(repo, childrenFirst(graph, merges), opts.jobs, opts.slots)) {
    progress(++done, merges.size);
    if (report.failed) {
      const i = graph.index(report.commit);
      if (merges.has(i)) failed.push({ commit: report.commit, parents: [graph.oid(graph.parent(i, 0)), graph.oid(graph.parent(i, 1))] });
      continue;
    }
    const finding = judgeMerge(graph, report, opts, drops);
    if (!finding) continue;
    findings.push(finding);
    if (report.withinRegions) finding.scenario.resolvable = true;
    else unsure.push(finding);
  }
  const exact = [...failed, ...unsure.map((f) => ({ commit: f.scenario.merge_commit_hash, parents: f.scenario.parents }))];
  if (exact.length > 0) {
    const byCommit = new Map(unsure.map((f) => [f.scenario.merge_commit_hash, f]));
    await remergeExactly(repo, exact, opts.jobs, (commit) => byCommit.get(commit) ?? null, (remerge) => {
      const finding = judgeMerge(graph, remerge, opts, drops);
      if (finding) findings.push(finding);
      return finding;
    }, drops);
  }
  findings.sort((a, b) => a.time - b.time || byCodeUnits(a.scenario.merge_commit_hash, b.scenario.merge_commit_hash));
  return findings;
}

/**
 * The ids of `merges` (numbers in the graph) with every merge before all of its ancestors (graph order
 * among the rest). git 2.39's `log --remerge-diff` re-merges a merge wrongly once one of its parents
 * has been re-merged earlier in the same process (on jenkins a clean merge came out with an add/add
 * conflict, after its parent merge of the same second), so a process must never meet a merge's
 * ancestor first; each part `deal` makes keeps this order.
 */
export function childrenFirst(graph: CommitGraph, merges: ReadonlySet<number>): string[] {
  // Children counted for the graph's commits only: a parent outside it is never walked.
  const children = new Int32Array(graph.size);
  for (let i = 0; i < graph.size; i++) {
    for (let k = 0; k < graph.parentCount(i); k++) {
      const p = graph.parent(i, k);
      if (graph.has(p)) children[p] = (children[p] ?? 0) + 1;
    }
  }
  const ready: number[] = [];
  for (let i = 0; i < graph.size; i++) if (children[i] === 0) ready.push(i);
  const order: string[] = [];
  // Kahn's walk from the tips: a commit is taken once every child of it has been.
  for (let r = 0; r < ready.length; r++) {
    const commit = ready[r] as number;
    if (merges.has(commit)) order.push(graph.oid(commit));
    for (let k = 0; k < graph.parentCount(commit); k++) {
      const p = graph.parent(commit, k);
      if (!graph.has(p)) continue;
      const left = (children[p] ?? 0) - 1;
      children[p] = left;
      if (left === 0) ready.push(p);
    }
  }
  return order;
}

/** Applies the merge rules to one re-merge; counts the reason when it is dropped. */
function judgeMerge(
  graph: CommitGraph,
  remerge: Remerge,
  opts: MergeMiningOptions,
  drops: DropCounter,
): MergeFinding | null {
  const { commit, conflicts } = remerge;
  if (conflicts.size === 0) return drops.merge("no_conflict"), null;
  if (!remerge.changed.every((f) => opts.languages.has(f))) return drops.merge("non_pl_file"), null;
  const files = [...conflicts.keys()].filter((f) => (conflicts.get(f) ?? 0) > 0).sort(byCodeUnits);
  const total = files.reduce((sum, f) => sum + (conflicts.get(f) ?? 0), 0);
  if (total === 0) return drops.merge("no_marker_conflict"), null;
  if (total > opts.maxConflicts) return drops.merge("too_many_conflicts"), null;
  const i = graph.index(commit);
  const [p1, p2] = [graph.oid(graph.parent(i, 0)), graph.oid(graph.parent(i, 1))];
  return {
    time: graph.time(i),
    scenario: {
      merge_commit_hash: commit,
      parents: [p1, p2],
      number_of_files_with_merge_conflict: files.length,
      total_number_of_merge_conflicts: total,
      files_in_merge_conflict: files,
      committed_at: committedAt(graph.time(i)),
    },
    difficulty: mergeDifficulty(files.length, total),
  };
}

/**
 * The exact path, with `git merge-tree` per merge (batched where git allows): for merges the stream
 * could not re-merge, which are judged here (a merge that still cannot be re-merged is counted as
 * missing_objects), and for kept merges whose `resolvable` the diff could not settle. `kept` names the
 * finding already made for a commit; `judge` makes one from a re-merge.
 */
async function remergeExactly(
  repo: Repo,
  pairs: readonly MergePair[],
  jobs: number,
  kept: (commit: string) => MergeFinding | null,
  judge: (remerge: Remerge) => MergeFinding | null,
  drops: DropCounter,
): Promise<void> {
  const remerger = new Remerger(repo, jobs);
  try {
    const reader = remerger.objects();
    for await (const outcome of remerger.remergeAll(pairs)) {
      if (!outcome.ok) {
        drops.merge("missing_objects");
        continue;
      }
      let finding = kept(outcome.commit);
      if (!finding) {
        const conflicted = [...new Set(outcome.conflicted)];
        const changes = await remerger.changes(outcome.tree, outcome.commit).catch(() => null);
        if (!changes) {
          drops.merge("missing_objects");
          continue;
        }
        const conflicts = new Map<string, number>();
        for (const file of conflicted) {
          const blob = await reader.read(`${outcome.tree}:${file}`);
          conflicts.set(file, blob && blob.type === "blob" ? findRegions(blob.content).length : 0);
        }
        const changed = [...new Set([...conflicted, ...changes.map((c) => c.path)])];
        finding = judge({ commit: outcome.commit, conflicts, changed });
        if (!finding) continue;
      }
      try {
        const judged = await remergeResolvable(remerger, outcome.commit, outcome);
        finding.scenario.resolvable = judged.resolvable;
        // Kept with the sample, so that no attempt's set-up re-merges to learn it again.
        if (!judged.resolvable && judged.reason !== null) finding.scenario.unresolvable_reason = judged.reason;
      } catch {
        /* an object of the recorded merge cannot be read: the merge stays a sample, `resolvable` unknown */
      }
    }
  } finally {
    await remerger.close();
  }
}

/** Plain code-unit order, independent of locale. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
