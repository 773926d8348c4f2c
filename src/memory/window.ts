/**
 * Keeps an answer within a character budget. The text is cut into a window starting at `offset`, and
 * a closing line says which characters are shown and which offsets show the rest. The result,
 * closing line included, is never longer than `limit`.
 */
export function windowText(text: string, offset: number, limit: number): string {
  const total = text.length;
  const start = Math.min(Math.max(0, Math.floor(offset)), total);
  if (start === 0 && total <= limit) return text;
  const widest = note(total, total, total, total, total);
  const room = Math.max(1, limit - widest.length - 1);
  let end = Math.min(total, start + room);
  if (end < total) {
    const nl = text.lastIndexOf("\n", end - 1);
    if (nl + 1 > start + room / 2) end = nl + 1;
    const code = text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  }
  const body = text.slice(start, end);
  const back = start > 0 ? Math.max(0, start - room) : -1;
  return `${body}${body.endsWith("\n") ? "" : "\n"}${note(start, end, total, end < total ? end : -1, back)}`;
}

function note(from: number, to: number, total: number, next: number, back: number): string {
  const parts = [`[shown: characters ${from}-${to} of ${total}`];
  if (next >= 0) parts.push(`the rest from offset ${next}`);
  if (back >= 0) parts.push(`earlier text from offset ${back}`);
  return `${parts.join("; ")}]`;
}
