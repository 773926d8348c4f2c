import type { Difficulty, MergeScenario } from "../dataset/sample.js";
import type { CommitNode } from "../git/history.js";
import { findRegions } from "../git/markers.js";
import { Remerger, type MergePair } from "../git/mergetree.js";
import type { Repo } from "../git/repo.js";
import { remergeReports } from "../git/remergediff.js";
import type { DropCounter } from "./drops.js";
import type { LanguageSet } from "./languages.js";

export interface MergeFinding {
  /** Committer time of the merge commit, for a stable chronological order. */
  time: number;
  scenario: MergeScenario;
  difficulty: Difficulty;
}

export interface MergeMiningOptions {
  languages: LanguageSet;
  maxConflicts: number;
  jobs: number;
}

export function mergeDifficulty(files: number, conflicts: number): Difficulty {
  if (files > 1) return "hard";
  return conflicts > 1 ? "medium" : "easy";
}

/**
 * Finds merge-conflict samples: every two-parent commit of the graph is re-merged; the merge is kept
 * when it conflicts, every conflicted file is in a mined language and has marker regions, and the
 * regions number 1..maxConflicts. Results are in chronological order (ties by hash).
 */
export async function mineMerges(
  repo: Repo,
  graph: ReadonlyMap<string, CommitNode>,
  opts: MergeMiningOptions,
  drops: DropCounter,
): Promise<MergeFinding[]> {
  const pairs: MergePair[] = [];
  for (const [commit, node] of graph) {
    if (node.parents.length > 2) drops.merge("octopus");
    if (node.parents.length !== 2) continue;
    const [p1, p2] = node.parents as [string, string];
    if (!graph.has(p1) || !graph.has(p2)) {
      drops.merge("shallow");
      continue;
    }
    pairs.push({ commit, parents: [p1, p2] });
  }
  const findings: MergeFinding[] = [];
  const judge = (commit: string, conflicts: ReadonlyMap<string, number>): void => {
    const finding = judgeMerge(graph, commit, conflicts, opts, drops);
    if (finding) findings.push(finding);
  };
  const judged = new Set<string>();
  try {
    for await (const report of remergeReports(
      repo,
      pairs.map((p) => p.commit),
      opts.jobs,
    )) {
      judged.add(report.commit);
      judge(report.commit, report.conflicts);
    }
  } catch {
    /* merges git could not re-merge in the stream are re-merged one by one below */
  }
  const rest = pairs.filter((p) => !judged.has(p.commit));
  if (rest.length > 0) await remergeOneByOne(repo, rest, opts.jobs, judge, drops);
  findings.sort((a, b) => a.time - b.time || byCodeUnits(a.scenario.merge_commit_hash, b.scenario.merge_commit_hash));
  return findings;
}

/** Applies the merge rules to one re-merge's conflicts; counts the reason when it is dropped. */
function judgeMerge(
  graph: ReadonlyMap<string, CommitNode>,
  commit: string,
  conflicts: ReadonlyMap<string, number>,
  opts: MergeMiningOptions,
  drops: DropCounter,
): MergeFinding | null {
  if (conflicts.size === 0) return drops.merge("no_conflict"), null;
  const files = [...conflicts.keys()].sort(byCodeUnits);
  if (!files.every((f) => opts.languages.has(f))) return drops.merge("non_pl_conflict"), null;
  const counts = files.map((f) => conflicts.get(f) ?? 0);
  if (counts.some((c) => c === 0)) return drops.merge("conflict_without_markers"), null;
  const total = counts.reduce((a, b) => a + b, 0);
  if (total > opts.maxConflicts) return drops.merge("too_many_conflicts"), null;
  const node = graph.get(commit);
  const [p1, p2] = (node?.parents ?? []) as [string, string];
  return {
    time: node?.time ?? 0,
    scenario: {
      merge_commit_hash: commit,
      parents: [p1, p2],
      number_of_files_with_merge_conflict: files.length,
      total_number_of_merge_conflicts: total,
      files_in_merge_conflict: files,
    },
    difficulty: mergeDifficulty(files.length, total),
  };
}

/**
 * The exact fallback for merges the streaming pass could not re-merge: `git merge-tree` per merge
 * (batched where git allows), counting marker regions in the re-merged blobs. A merge that still
 * cannot be re-merged (objects missing from a partial clone) is counted as such.
 */
async function remergeOneByOne(
  repo: Repo,
  pairs: readonly MergePair[],
  jobs: number,
  judge: (commit: string, conflicts: ReadonlyMap<string, number>) => void,
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
      const conflicts = new Map<string, number>();
      for (const file of new Set(outcome.conflicted)) {
        const blob = await reader.read(`${outcome.tree}:${file}`);
        conflicts.set(file, blob && blob.type === "blob" ? findRegions(blob.content).length : 0);
      }
      judge(outcome.commit, conflicts);
    }
  } finally {
    await remerger.close();
  }
}

/** Plain code-unit order, independent of locale. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
