import { findRegions, regionSides } from "../git/markers.js";
import { Remerger } from "../git/mergetree.js";
import { parsePath } from "../git/paths.js";
import { regionFills } from "../git/region-fill.js";
import type { Repo } from "../git/repo.js";
import { readBlob } from "../git/trees.js";

/** What an agent put in a conflict region that the recorded merge resolved otherwise. */
export type RegionSide = "ours" | "theirs" | "neither";

/** One region of a conflicted file that differs from the recorded merge's, and which side it took. */
export interface RegionTaken {
  /** The region's position in its file, 0 first. */
  region: number;
  took: RegionSide;
}

/** Which regions of one file differ from the recorded merge's, and which side each took; null when the file cannot be read that way. */
function fileRegions(merged: Buffer, recorded: Buffer, agentBytes: Buffer): RegionTaken[] | null {
  const regions = findRegions(merged);
  const want = regionFills(merged, recorded, regions);
  const got = regionFills(merged, agentBytes, regions);
  if (regions.length === 0 || want === null || got === null) return null;
  const taken: RegionTaken[] = [];
  regions.forEach((r, i) => {
    const agent = got[i];
    if (agent === undefined || want[i]?.equals(agent)) return;
    const sides = regionSides(merged.toString("utf8", r.start, r.end));
    const text = agent.toString("utf8");
    taken.push({ region: i, took: text === sides.ours ? "ours" : text === sides.theirs ? "theirs" : "neither" });
  });
  return taken;
}

/**
 * Which side each differing region of each given file took. Each conflicted file is located as the
 * merge of the parents left it: from `conflicted` (the set-up's merge, markers included) when given,
 * else by re-merging the parents with git (`merge-tree`, as the scenario merged them, into a private
 * object store: the source is not written). The text the agent and the recorded merge put in place of
 * each region is read by matching the literal text between the regions. A file whose agent or recorded
 * content cannot be read that way (edited outside its regions, deleted, not conflicted in the merge) is
 * left out of the answer.
 */
export async function regionsTaken(
  source: Repo,
  merge: { merge_commit_hash: string; parents: readonly string[] },
  files: readonly { path: string; bytes: Buffer }[],
  conflicted?: ReadonlyMap<string, Buffer>,
): Promise<Map<string, RegionTaken[]>> {
  const out = new Map<string, RegionTaken[]>();
  const [p1, p2] = merge.parents;
  if (files.length === 0 || p1 === undefined || p2 === undefined) return out;
  if (conflicted) {
    for (const f of files) {
      const merged = conflicted.get(f.path) ?? null;
      const recorded = merged === null ? null : await readBlob(source, merge.merge_commit_hash, parsePath(f.path));
      const taken = merged === null || recorded === null ? null : fileRegions(merged, recorded, f.bytes);
      if (taken !== null) out.set(f.path, taken);
    }
    return out;
  }
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
      const taken = merged === null || recorded === null ? null : fileRegions(merged, recorded, f.bytes);
      if (taken !== null) out.set(f.path, taken);
    }
    return out;
  } finally {
    await remerger.close();
  }
}
