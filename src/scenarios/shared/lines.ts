const NL = 0x0a;
const CR = 0x0d;

function lineEnd(buf: Buffer, at: number): number {
  const nl = buf.indexOf(NL, at);
  return nl === -1 ? buf.length : nl + 1;
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
