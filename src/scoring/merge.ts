import type { MergeSample } from "../dataset/sample.js";
import type { Repo } from "../git/repo.js";
import { readBlob, treeOf } from "../git/trees.js";
import type { MergeFinalState } from "../scenarios/types.js";

export interface FileMatch {
  path: string;
  /** Byte-identical to the file in the recorded merge commit. */
  exact: boolean;
  /** Identical once all whitespace is removed: a diagnostic, not the score. */
  ignoring_whitespace: boolean;
}

export interface MergeScore {
  solved: boolean;
  conflicts_left: number;
  /** The resulting tree equals the merge commit's tree. */
  tree_matches: boolean;
  files: FileMatch[];
}

const squash = (s: string): string => s.replace(/\s+/g, "");

/**
 * MCR scoring as published: solved iff no conflict is left and the resulting tree is the merge
 * commit's tree (exact match); per conflicted file, exact and whitespace-blind matches as diagnostics.
 */
export async function scoreMerge(sample: MergeSample, final: MergeFinalState, source: Repo): Promise<MergeScore> {
  const merge = sample.scenario.merge_commit_hash;
  const expectedTree = await treeOf(source, merge);
  const files: FileMatch[] = [];
  for (const f of final.files) {
    const expected = (await readBlob(source, merge, f.path))?.toString("utf8") ?? null;
    const actual = f.content === null ? null : f.encoding === "base64" ? Buffer.from(f.content, "base64").toString("utf8") : f.content;
    files.push({
      path: f.path,
      exact: expected === actual,
      ignoring_whitespace: expected !== null && actual !== null ? squash(expected) === squash(actual) : expected === actual,
    });
  }
  const treeMatches = final.tree !== null && final.tree === expectedTree;
  return { solved: final.conflicts_left === 0 && treeMatches, conflicts_left: final.conflicts_left, tree_matches: treeMatches, files };
}
