import type { MergeSample } from "../../dataset/sample.js";
import type { Repo } from "../../git/repo.js";
import { mergeResolvable } from "../../git/resolvable.js";

/**
 * Whether the published tools can reproduce the sample's merge, and why not: a sample that says (as
 * gitgood's miner writes them: resolvable, or not and why) is taken at its word; otherwise (imported
 * without the fields, or written before the reason was kept) the parents are re-merged and compared with
 * the recorded tree.
 */
export async function resolvabilityOf(source: Repo, sample: MergeSample): Promise<{ resolvable: boolean; reason: string | null }> {
  const { resolvable, unresolvable_reason: reason } = sample.scenario;
  if (resolvable === true) return { resolvable: true, reason: null };
  if (resolvable === false && reason !== undefined) return { resolvable: false, reason };
  return mergeResolvable(source, sample.scenario);
}
