import { findRegions } from "../../git/markers.js";
import { at } from "../../util/at.js";

/**
 * The text each conflict region of `conflicted` must become for the file to equal `resolved` (the
 * version the project committed). The text outside the regions is matched in order; null when the
 * committed file also changed text outside the regions, so no choice of region texts can reach it.
 */
export function resolutionsFor(conflicted: Buffer, resolved: Buffer): string[] | null {
  const regions = findRegions(conflicted);
  const between: Buffer[] = [];
  let offset = 0;
  for (const r of regions) {
    between.push(conflicted.subarray(offset, r.start));
    offset = r.end;
  }
  const tail = conflicted.subarray(offset);
  const head = between[0] ?? Buffer.alloc(0);
  if (!resolved.subarray(0, head.length).equals(head)) return null;
  if (resolved.length < head.length + tail.length || !resolved.subarray(resolved.length - tail.length).equals(tail)) return null;
  const limit = resolved.length - tail.length;
  let pos = head.length;
  const out: string[] = [];
  for (let i = 0; i < regions.length; i++) {
    const next = i + 1 < between.length ? at(between, i + 1) : null;
    const end = next === null ? limit : resolved.indexOf(next, pos);
    if (end < pos || end > limit) return null;
    out.push(resolved.toString("utf8", pos, end));
    pos = end + (next?.length ?? 0);
  }
  return pos <= limit ? out : null;
}

/**
 * The texts that resolve one conflicted file so it equals `wanted` (the committed version; null when
 * the commit has no such file): for a whole-file conflict (no markers, a symbolic link) the whole
 * content, empty to delete; otherwise one text per region. Null when no texts can: the committed file
 * changed text outside the regions, is empty where only deleting is possible, or is not UTF-8 (tool
 * arguments are text).
 */
export function resolutionsOf(file: { wholeFile: boolean }, conflicted: Buffer, wanted: Buffer | null): string[] | null {
  if (wanted !== null && !Buffer.from(wanted.toString("utf8"), "utf8").equals(wanted)) return null;
  if (!file.wholeFile) return wanted === null ? null : resolutionsFor(conflicted, wanted);
  if (wanted === null) return [""];
  return wanted.length === 0 ? null : [wanted.toString("utf8")];
}
