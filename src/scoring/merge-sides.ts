import { findRegions, regionSides } from "../git/markers.js";
import { Remerger } from "../git/mergetree.js";
import { parsePath } from "../git/paths.js";
import { regionFills } from "../git/region-fill.js";
import type { Repo } from "../git/repo.js";

/** What an agent put in a conflict region that the recorded merge resolved otherwise. */
export type RegionSide = "ours" | "theirs" | "neither";

/** One region of a conflicted file that differs from the recorded merge's, and which side it took. */
export interface RegionTaken {
  /** The region's position in its file, 0 first. */
  region: number;
  took: RegionSide;
}

/**
 * Which side each differing region of each given file took: the parents are re-merged with git
 * (`merge-tree`, as the scenario merged them, into a private object store: the source is not written),
 * each conflicted file's regions are located in the re-merge, and the text the agent and the recorded
 * merge put in their place is read by matching the literal text between the regions. A file whose
 * agent or recorded content cannot be read that way (edited outside its regions, deleted, not
 * conflicted in the re-merge) is left out of the answer.
 */
export async function regionsTaken(
  source: Repo,
  merge: { merge_commit_hash: string; parents: readonly string[] },
  files: readonly { path: string; bytes: Buffer }[],
): Promise<Map<string, RegionTaken[]>> {
  const out = new Map<string, RegionTaken[]>();
  const [p1, p2] = merge.parents;
  if (files.length === 0 || p1 === undefined || p2 === undefined) return out;
  const remerger = new Remerger(source, 1);
  try {
    let outcome = null;
    for await (const o of remerger.remergeAll([{ commit: merge.merge_commit_hash, parents: [p1, p2] }])) outcome = o;
    if (!outcome?.ok) return out;
    const reader = remerger.objects();
    const read = async (rev: string, path: string): Promise<Buffer | null> => {
      const o = await reader.read(Buffer.concat([Buffer.from(`${rev}:`, "utf8"), parsePath(path)]));
      return o?.type === "blob" ? o.content : null;
    };
    for (const f of files) {
      const [merged, recorded] = await Promise.all([read(outcome.tree, f.path), read(merge.merge_commit_hash, f.path)]);
      if (merged === null || recorded === null) continue;
      const regions = findRegions(merged);
      const want = regionFills(merged, recorded, regions);
      const got = regionFills(merged, f.bytes, regions);
      if (regions.length === 0 || want === null || got === null) continue;
      const taken: RegionTaken[] = [];
      regions.forEach((r, i) => {
        const agent = got[i];
        if (agent === undefined || want[i]?.equals(agent)) return;
        const sides = regionSides(merged.toString("utf8", r.start, r.end));
        const text = agent.toString("utf8");
        taken.push({ region: i, took: text === sides.ours ? "ours" : text === sides.theirs ? "theirs" : "neither" });
      });
      out.set(f.path, taken);
    }
    return out;
  } finally {
    await remerger.close();
  }
}
