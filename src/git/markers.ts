/**
 * Conflict markers, with one set of rules for every reader (mining, scenarios, agents).
 *
 * A marker line starts with exactly seven marker characters followed by a space (then a label), a
 * line break (LF or CRLF) or the end of the text: `<<<<<<<` opens a region, `|||||||` starts the
 * base section (diff3 and zdiff3 styles), `=======` separates the two sides and `>>>>>>>` closes the
 * region. Longer runs (the markers of an inner, virtual-base merge), indented markers and markers
 * inside a line are text.
 *
 * A region runs from its `<<<<<<<` line through the line break that ends its `>>>>>>>` line and needs
 * the `=======` line in between. A whole `<<<<<<<` … `>>>>>>>` pair inside a side (markers committed
 * earlier, which the re-merge carried along) is text of that side. When reading pairs that way never
 * closes the region (a lone marker-like line inside a side), every marker-like line inside the sides
 * is read as text instead; a `<<<<<<<` line that no reading closes is text.
 */

const MARKER_SIZE = 7;

type MarkerKind = "open" | "base" | "separator" | "close";

/** A conflict region as byte offsets into a file: from the `<<<<<<<` line to the end of the `>>>>>>>` line. */
export interface Region {
  start: number;
  /** Exclusive; just after the line break that ends the `>>>>>>>` line (or the end of the file). */
  end: number;
}

/** The text of each section of a region, marker lines excluded. */
interface RegionSides {
  ours: string;
  /** The base section of the diff3 and zdiff3 styles; null in the merge style. */
  base: string | null;
  theirs: string;
}

interface Span {
  start: number;
  end: number;
}

interface ParsedRegion extends Region {
  ours: Span;
  base: Span | null;
  theirs: Span;
}

const LF = 0x0a;
const CR = 0x0d;
const SP = 0x20;

const KINDS: ReadonlyMap<number, MarkerKind> = new Map([
  [0x3c, "open"],
  [0x7c, "base"],
  [0x3d, "separator"],
  [0x3e, "close"],
]);

/** The marker at byte `at` (taken as the start of a line), or null when the line is text. */
function markerAt(buf: Buffer, at: number): MarkerKind | null {
  const first = buf[at];
  const kind = first === undefined ? undefined : KINDS.get(first);
  if (kind === undefined) return null;
  for (let i = 1; i < MARKER_SIZE; i++) if (buf[at + i] !== first) return null;
  const next = buf[at + MARKER_SIZE];
  return next === undefined || next === SP || next === LF || next === CR ? kind : null;
}

/** The marker one line of text is (with or without its line break), or null when it is text. */
export function lineMarker(line: string): MarkerKind | null {
  return markerAt(Buffer.from(line.slice(0, MARKER_SIZE + 1), "utf8"), 0);
}

function lineEnd(buf: Buffer, at: number): number {
  const nl = buf.indexOf(LF, at);
  return nl === -1 ? buf.length : nl + 1;
}

/**
 * Reads the region whose `<<<<<<<` line starts at `start`; null when it is not closed. With `pairs`,
 * a `<<<<<<<` … `>>>>>>>` pair inside a side is text of the side; without, every marker-like line
 * that does not fit the region's own order is.
 */
function readRegion(buf: Buffer, start: number, pairs: boolean): ParsedRegion | null {
  let at = lineEnd(buf, start);
  let part: "ours" | "base" | "theirs" = "ours";
  let depth = 0;
  const ours: Span = { start: at, end: at };
  let base: Span | null = null;
  let theirs: Span | null = null;
  while (at < buf.length) {
    const next = lineEnd(buf, at);
    const kind = markerAt(buf, at);
    if (pairs && kind === "open") depth++;
    else if (pairs && depth > 0) {
      if (kind === "close") depth--;
    } else if (part === "ours" && kind === "base") {
      ours.end = at;
      base = { start: next, end: next };
      part = "base";
    } else if (part !== "theirs" && kind === "separator") {
      if (base) base.end = at;
      else ours.end = at;
      theirs = { start: next, end: next };
      part = "theirs";
    } else if (theirs && kind === "close") {
      theirs.end = at;
      return { start, end: next, ours, base, theirs };
    }
    at = next;
  }
  return null;
}

function parseRegions(buf: Buffer, from: number): ParsedRegion[] {
  const regions: ParsedRegion[] = [];
  let at = from;
  while (at < buf.length) {
    if (markerAt(buf, at) === "open") {
      const region = readRegion(buf, at, true) ?? readRegion(buf, at, false);
      if (region) {
        regions.push(region);
        at = region.end;
        continue;
      }
    }
    at = lineEnd(buf, at);
  }
  return regions;
}

/**
 * Finds the conflict regions of `buf`, scanning from byte `from` (which counts as the start of a
 * line: text an agent wrote before it need not end with a line break).
 */
export function findRegions(buf: Buffer, from = 0): Region[] {
  return parseRegions(buf, from).map(({ start, end }) => ({ start, end }));
}

/** The sections of the first region in `text` (a region as shown to an agent); empty sides when there is none. */
export function regionSides(text: string): RegionSides {
  const buf = Buffer.from(text, "utf8");
  const region = parseRegions(buf, 0)[0];
  if (!region) return { ours: "", base: null, theirs: "" };
  const show = (s: Span): string => buf.toString("utf8", s.start, s.end);
  return { ours: show(region.ours), base: region.base ? show(region.base) : null, theirs: show(region.theirs) };
}

/**
 * Counts the regions a re-merge made from the lines a diff against the recorded merge shows removed,
 * in order (marker lines the recorded merge added are markers it committed, not regions, and are not
 * given here). A diff leaves out lines the recorded merge kept, so only `<<<<<<<` and `>>>>>>>` lines
 * count: each `<<<<<<<` outside a region opens one, and a pair inside a region is text of a side.
 */
export function countRemovedRegions(removed: Iterable<string>): number {
  let count = 0;
  let depth = 0;
  for (const line of removed) {
    const kind = lineMarker(line);
    if (kind === "open") {
      if (depth === 0) count++;
      depth++;
    } else if (kind === "close" && depth > 0) depth--;
  }
  return count;
}
