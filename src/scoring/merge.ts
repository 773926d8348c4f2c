import type { MergeSample } from "../dataset/sample.js";
import { parsePath } from "../git/paths.js";
import type { Repo } from "../git/repo.js";
import { readBlob, treeOf } from "../git/trees.js";
import { regionsTaken, type RegionTaken } from "./merge-sides.js";
import { rewardNamed, share, type Scorer } from "./scorer.js";

/** What exact-match scoring needs of a merge's final state. */
export interface MergeOutcome {
  conflicts_left: number;
  /** The tree of the merge the scenario committed, or null when it was never committed. */
  tree: string | null;
  files: readonly { path: string; content: string | null; encoding: "utf8" | "base64" }[];
  /** Whether replacing only conflict regions can reach the recorded tree, and why not (when the scenario knew). */
  resolvable?: boolean;
  unresolvable_reason?: string | null;
  /** Each conflicted file as the set-up's merge left it, markers included (absent: the scorer merges the parents again). */
  conflicted?: readonly { path: string; content: string | null; encoding: "utf8" | "base64" }[];
}

/** How one conflicted file of an attempt compares with the recorded merge: exactly, ignoring whitespace, and region by region. */
export interface FileMatch {
  path: string;
  /** Byte-identical to the file in the recorded merge commit. */
  exact: boolean;
  /** Identical once all whitespace is removed: a diagnostic, not the score. */
  ignoring_whitespace: boolean;
  /**
   * Once no conflict is left, for a file that differs: each conflict region resolved otherwise than the
   * recorded merge, and which side's text it holds (absent when the regions cannot be told apart).
   */
  regions?: RegionTaken[];
}

/** The `merge` scorer's value: whether the agent's merge reproduces the recorded one, file by file. */
export interface MergeScore {
  /** No conflict is left and the tree equals the recorded merge commit's. */
  solved: boolean;
  /** Conflicted files the agent left unresolved. */
  conflicts_left: number;
  /** The resulting tree equals the merge commit's tree. */
  tree_matches: boolean;
  /** Each file that was in conflict, compared with the recorded merge's. */
  files: FileMatch[];
  /** Replacing only the conflict regions can reproduce the recorded merge (null: not known). */
  resolvable: boolean | null;
  /** Why not: the first path no region replacement reaches (null when resolvable or not known). */
  unresolvable_reason: string | null;
}

const squash = (s: string): string => s.replace(/\s+/g, "");

/**
 * MCR scoring as published: solved iff no conflict is left and the resulting tree is the merge
 * commit's tree (exact match); per conflicted file, exact and whitespace-blind matches as diagnostics.
 */
export async function scoreMerge(sample: MergeSample, final: MergeOutcome, source: Repo): Promise<MergeScore> {
  const merge = sample.scenario.merge_commit_hash;
  const expectedTree = await treeOf(source, merge);
  const files: FileMatch[] = [];
  for (const f of final.files) {
    const expected = await readBlob(source, merge, parsePath(f.path));
    const actual = f.content === null ? null : Buffer.from(f.content, f.encoding === "base64" ? "base64" : "utf8");
    const exact = expected === null || actual === null ? expected === actual : expected.equals(actual);
    const loose =
      expected !== null && actual !== null ? squash(expected.toString("utf8")) === squash(actual.toString("utf8")) : exact;
    files.push({ path: f.path, exact, ignoring_whitespace: loose });
  }
  const differing = final.conflicts_left === 0 ? final.files.filter((f, i) => files[i]?.exact === false && f.content !== null) : [];
  const bytes = (f: { content: string | null; encoding: "utf8" | "base64" }): Buffer => Buffer.from(f.content ?? "", f.encoding === "base64" ? "base64" : "utf8");
  const conflicted = final.conflicted && new Map(final.conflicted.flatMap((f) => (f.content === null ? [] : [[f.path, bytes(f)] as const])));
  const taken = await regionsTaken(
    source,
    sample.scenario,
    differing.map((f) => ({ path: f.path, bytes: bytes(f) })),
    conflicted,
  );
  for (const m of files) {
    const regions = taken.get(m.path);
    if (regions) m.regions = regions;
  }
  const treeMatches = final.tree !== null && final.tree === expectedTree;
  return {
    solved: final.conflicts_left === 0 && treeMatches,
    conflicts_left: final.conflicts_left,
    tree_matches: treeMatches,
    files,
    resolvable: final.resolvable ?? null,
    unresolvable_reason: final.unresolvable_reason ?? null,
  };
}

/** The exact-match scorer: decides the verdict. */
export const exactMatch: Scorer<MergeSample, MergeOutcome> = {
  name: "exact_match",
  shapedRewards: [{ name: "files_exact", description: "the share of the conflicted files whose text is byte-identical to the recorded merge's" }],
  shape(value) {
    const files = Array.isArray(value["files"]) ? (value["files"] as unknown[]) : [];
    const exact = files.filter((f) => typeof f === "object" && f !== null && (f as { exact?: unknown }).exact === true).length;
    return rewardNamed("files_exact", share(exact, files.length));
  },
  async score(sample, final, ctx) {
    const s = await scoreMerge(sample, final, ctx.source);
    return { solved: s.solved, value: { ...s } };
  },
};
