const OPEN = Buffer.from("<<<<<<<");

/**
 * Counts conflict regions: lines that start with exactly seven `<` followed by a space or the end of
 * the line (LF or CRLF). Longer runs of `<` are markers of an inner (virtual base) merge or plain
 * content, not regions of this merge.
 */
export function countConflictRegions(content: Buffer): number {
  let count = 0;
  let at = content.indexOf(OPEN);
  while (at !== -1) {
    if (at === 0 || content[at - 1] === 0x0a) {
      const next = content[at + 7];
      if (next === undefined || next === 0x20 || next === 0x0a || next === 0x0d) count++;
    }
    at = content.indexOf(OPEN, at + 7);
  }
  return count;
}
