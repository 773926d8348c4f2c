import { findRegions, type Region } from "./markers.js";
import { at } from "../util/at.js";

/**
 * The replacement of each conflict region of `merged` (each region its whole marker block, as
 * markers.ts finds them) that turns it into `target` byte for byte, or null when no replacement of
 * only the regions can. The literal segments between the regions must appear in `target` in order:
 * the first as its start, the last as its end, the others anywhere in between without overlapping
 * (leftmost matching is exact for such patterns). A file without regions can only stay as it is.
 */
export function regionFills(merged: Buffer, target: Buffer, regions: readonly Region[] = findRegions(merged)): Buffer[] | null {
  if (regions.length === 0) return merged.equals(target) ? [] : null;
  const first = at(regions, 0);
  const last = at(regions, regions.length - 1);
  const head = merged.subarray(0, first.start);
  const tail = merged.subarray(last.end);
  if (head.length + tail.length > target.length) return null;
  if (!target.subarray(0, head.length).equals(head)) return null;
  const limit = target.length - tail.length;
  if (!target.subarray(limit).equals(tail)) return null;
  const fills: Buffer[] = [];
  let offset = head.length;
  for (let i = 1; i < regions.length; i++) {
    const literal = merged.subarray(at(regions, i - 1).end, at(regions, i).start);
    const found = literal.length === 0 ? offset : target.indexOf(literal, offset);
    if (found === -1 || found + literal.length > limit) return null;
    fills.push(target.subarray(offset, found));
    offset = found + literal.length;
  }
  fills.push(target.subarray(offset, limit));
  return fills;
}

/** Whether replacing only the conflict regions of `merged` can turn it into `target` (see regionFills). */
export function regionsCanBecome(merged: Buffer, target: Buffer, regions: readonly Region[] = findRegions(merged)): boolean {
  return regionFills(merged, target, regions) !== null;
}
