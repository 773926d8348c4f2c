/** Largest answer shown in one tool result, in characters. */
export const OUTPUT_LIMIT = 20_000;

export interface Page {
  text: string;
  from: number;
  to: number;
  total: number;
}

/**
 * One page of `text` starting at `offset`, at most `limit` characters, cut after a line break when one
 * is in the second half of the page (so lines are not split needlessly).
 */
export function page(text: string, offset: number, limit = OUTPUT_LIMIT): Page {
  const total = text.length;
  const from = Math.min(Math.max(0, offset), total);
  let to = Math.min(total, from + limit);
  if (to < total) {
    const nl = text.lastIndexOf("\n", to - 1);
    if (nl + 1 > from + limit / 2) to = nl + 1;
    // Never split a surrogate pair.
    const code = text.charCodeAt(to - 1);
    if (code >= 0xd800 && code <= 0xdbff) to -= 1;
  }
  return { text: text.slice(from, to), from, to, total };
}

/** The page with visible markers saying what was left out and how to see it. */
export function renderPage(p: Page, more: { tool: string; pageable: boolean } | null): string {
  let out = p.text;
  if (p.from > 0) out = `[... continued from character ${p.from} of ${p.total}]\n${out}`;
  if (p.to < p.total) {
    if (!out.endsWith("\n")) out += "\n";
    const how = !more
      ? "the rest is not shown"
      : more.pageable
        ? `call ${more.tool} again with "output_offset": ${p.to} to see the rest`
        : `call ${more.tool} to see it`;
    out += `[... output truncated: characters ${p.from}-${p.to} of ${p.total} shown; ${how}]`;
  }
  return out;
}
