import type { Difficulty, MergeScenario } from "../dataset/sample.js";
import type { CommitNode } from "../git/history.js";
import { Remerger, type MergePair } from "../git/mergetree.js";
import type { Repo } from "../git/repo.js";
import { countConflictRegions } from "./conflicts.js";
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
  const remerger = new Remerger(repo, opts.jobs);
  try {
    const reader = remerger.objects();
    for await (const outcome of remerger.remergeAll(pairs)) {
      if (!outcome.ok) {
        drops.merge("missing_objects");
        continue;
      }
      if (outcome.clean || outcome.conflicted.length === 0) {
        drops.merge("no_conflict");
        continue;
      }
      if (!outcome.conflicted.every((f) => opts.languages.has(f))) {
        drops.merge("non_pl_conflict");
        continue;
      }
      const files = [...new Set(outcome.conflicted)].sort(byCodeUnits);
      const blobs = await Promise.all(files.map((f) => reader.read(`${outcome.tree}:${f}`)));
      const counts = blobs.map((b) => (b && b.type === "blob" ? countConflictRegions(b.content) : 0));
      if (counts.some((c) => c === 0)) {
        drops.merge("conflict_without_markers");
        continue;
      }
      const total = counts.reduce((a, b) => a + b, 0);
      if (total > opts.maxConflicts) {
        drops.merge("too_many_conflicts");
        continue;
      }
      const node = graph.get(outcome.commit);
      const pair = node?.parents as [string, string];
      findings.push({
        time: node?.time ?? 0,
        scenario: {
          merge_commit_hash: outcome.commit,
          parents: [pair[0], pair[1]],
          number_of_files_with_merge_conflict: files.length,
          total_number_of_merge_conflicts: total,
          files_in_merge_conflict: files,
        },
        difficulty: mergeDifficulty(files.length, total),
      });
    }
  } finally {
    await remerger.close();
  }
  findings.sort((a, b) => a.time - b.time || byCodeUnits(a.scenario.merge_commit_hash, b.scenario.merge_commit_hash));
  return findings;
}

/** Plain code-unit order, independent of locale. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
