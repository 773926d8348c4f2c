/** A conflict region as byte offsets into a file: from the `<<<<<<<` line to the end of the `>>>>>>>` line. */
export interface Region {
  start: number;
  /** Exclusive; just after the line break that ends the `>>>>>>>` line (or the end of the file). */
  end: number;
}

const LT = 0x3c;
const GT = 0x3e;
const NL = 0x0a;
const CR = 0x0d;
const SP = 0x20;

/** True when `buf` has a marker line of exactly seven `ch` at `at`: followed by a space, CR, LF or the end. */
function isMarker(buf: Buffer, at: number, ch: number): boolean {
  for (let i = 0; i < 7; i++) if (buf[at + i] !== ch) return false;
  const next = buf[at + 7];
  return next === undefined || next === SP || next === NL || next === CR;
}

function lineEnd(buf: Buffer, at: number): number {
  const nl = buf.indexOf(NL, at);
  return nl === -1 ? buf.length : nl + 1;
}

/**
 * Finds conflict regions in `buf`, scanning from byte `from` (which counts as the start of a line:
 * text an agent wrote before it need not end with a line break). A `<<<<<<<` line without a closing
 * `>>>>>>>` line is not a region.
 */
export function findRegions(buf: Buffer, from = 0): Region[] {
  const regions: Region[] = [];
  let at = from;
  let open = -1;
  while (at < buf.length) {
    const next = lineEnd(buf, at);
    if (open === -1 && isMarker(buf, at, LT)) open = at;
    else if (open !== -1 && isMarker(buf, at, GT)) {
      regions.push({ start: open, end: next });
      open = -1;
    }
    at = next;
  }
  return regions;
}

/** True when the file's line breaks are CRLF (judged by its first line break). */
export function usesCrlf(buf: Buffer): boolean {
  const nl = buf.indexOf(NL);
  return nl > 0 && buf[nl - 1] === CR;
}

/** 1-based line number of byte `offset`. */
export function lineAt(buf: Buffer, offset: number): number {
  let n = 1;
  let at = buf.indexOf(NL);
  while (at !== -1 && at < offset) {
    n++;
    at = buf.indexOf(NL, at + 1);
  }
  return n;
}

/** The last `n` lines of text that ends at `end` (a partial line counts as one). */
export function linesBefore(buf: Buffer, end: number, n: number): { start: number; text: string } {
  let start = end;
  for (let i = 0; i < n && start > 0; i++) {
    const prev = start >= 2 ? buf.lastIndexOf(NL, start - 2) : -1;
    start = prev === -1 ? 0 : prev + 1;
  }
  return { start, text: buf.toString("utf8", start, end) };
}

/** The first `n` lines of text that starts at `start`. */
export function linesAfter(buf: Buffer, start: number, n: number): string {
  let end = start;
  for (let i = 0; i < n && end < buf.length; i++) end = lineEnd(buf, end);
  return buf.toString("utf8", start, end);
}
