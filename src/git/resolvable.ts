import { GitGoodError } from "../errors.js";
import { findRegions } from "./markers.js";
import { Remerger } from "./mergetree.js";
import { regionsCanBecome } from "./region-fill.js";
import type { Repo } from "./repo.js";

interface Resolvability {
  /** Replacing only the conflict regions of the re-merge can reproduce the recorded merge's tree. */
  resolvable: boolean;
  /** The first path (in git's order) that no such replacement reaches, and why; null when resolvable. */
  reason: string | null;
}

const LINK_MODE = "120000";
const GITLINK_MODE = "160000";
const ABSENT_MODE = "000000";

function unreadable(oid: string, path: string): GitGoodError {
  return new GitGoodError("GIT_FAILED", `cannot read object ${oid} (${path}) to compare a re-merge with its merge`, { oid, path });
}

/**
 * Whether the recorded tree of `mergeCommit` can be reached from a re-merge (`tree`, with markers in
 * the `conflicted` files) by replacing only conflict regions, as the MCR tools do. A conflicted file
 * with marker regions must keep everything outside its regions byte for byte (and its mode, and must
 * not be deleted); a conflicted file without regions (modify/delete, a link) is one whole-file conflict
 * whose content any resolution may set; every other path must be identical.
 */
export async function remergeResolvable(
  remerger: Remerger,
  mergeCommit: string,
  remerge: { tree: string; conflicted: readonly string[] },
): Promise<Resolvability> {
  const conflicted = new Set(remerge.conflicted);
  const reader = remerger.objects();
  const no = (path: string, why: string): Resolvability => ({ resolvable: false, reason: `${path}: ${why}` });
  for (const change of await remerger.changes(remerge.tree, mergeCommit)) {
    const { path } = change;
    if (!conflicted.has(path)) return no(path, "changed in the merge without a conflict");
    if (change.oldMode === ABSENT_MODE || change.oldMode === LINK_MODE || change.oldMode === GITLINK_MODE) continue;
    const merged = await reader.read(change.oldOid);
    if (!merged) throw unreadable(change.oldOid, path);
    const regions = findRegions(merged.content);
    if (regions.length === 0) continue;
    if (change.newMode === ABSENT_MODE) return no(path, "deleted in the merge, which replacing its conflict regions cannot do");
    if (change.newMode !== change.oldMode) return no(path, `mode changed in the merge (${change.oldMode} to ${change.newMode})`);
    const recorded = await reader.read(change.newOid);
    if (!recorded) throw unreadable(change.newOid, path);
    if (!regionsCanBecome(merged.content, recorded.content, regions)) {
      return no(path, "edited outside its conflict regions");
    }
  }
  return { resolvable: true, reason: null };
}

/**
 * Whether an agent that may only replace conflict regions (the published MCR tools) can reproduce a
 * merge commit's tree: the parents are re-merged with `git merge-tree --write-tree` (the settings of
 * a plain `git merge`, as the MCR scenario sets it up) and compared with the recorded tree. The
 * repository is not written to.
 */
export async function mergeResolvable(
  repo: Repo,
  merge: { merge_commit_hash: string; parents: readonly [string, string] | string[] },
): Promise<{ resolvable: boolean; reason: string | null }> {
  const [p1, p2] = merge.parents;
  if (merge.parents.length !== 2 || p1 === undefined || p2 === undefined) {
    throw new GitGoodError("BAD_SAMPLE", `merge ${merge.merge_commit_hash} must name exactly two parents`, {
      commit: merge.merge_commit_hash,
    });
  }
  const remerger = new Remerger(repo, 1);
  try {
    let outcome = null;
    for await (const o of remerger.remergeAll([{ commit: merge.merge_commit_hash, parents: [p1, p2] }])) outcome = o;
    if (!outcome || !outcome.ok) {
      const why = outcome && !outcome.ok ? outcome.error : "no answer from git merge-tree";
      throw new GitGoodError("GIT_FAILED", `re-merging the parents of ${merge.merge_commit_hash} failed: ${why}`, {
        commit: merge.merge_commit_hash,
      });
    }
    return await remergeResolvable(remerger, merge.merge_commit_hash, outcome);
  } finally {
    await remerger.close();
  }
}
