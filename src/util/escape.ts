/**
 * Control characters a terminal or a model must never get raw: C0 except tab and newline, DEL, C1. A
 * carriage return is one too, unless it ends a CRLF line (shown as it is, as Windows files have it).
 */
const CONTROL = "[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]|\\r(?!\\n)";

/**
 * A control character, or a run of backslashes that would read as the start of an escape: one that
 * comes before a control character or before literal `xHH` text.
 */
const NEEDS_ESCAPE = new RegExp(`${CONTROL}|\\\\+(?=x[0-9A-Fa-f]{2}|${CONTROL})`, "g");

/**
 * Makes raw text from a repository safe to show an agent or print on a terminal: NUL, escape
 * sequences and every other C0/C1 control character except tab, newline and the CR of a CRLF line
 * ending become a visible `\xHH`
 * (ESC is `\x1b`). The notation is reversible: a run of backslashes that would otherwise read as part
 * of such an escape is doubled, so `\x1b` in the output is always an escaped character and `\\x1b`
 * the literal text `\x1b`. Every other backslash (`\n` in source code, a Windows path) is kept as it is.
 * Use it for what is shown, never for content written to files or compared for exact match.
 */
export function escapeControls(text: string): string {
  return text.replace(NEEDS_ESCAPE, (m) =>
    m.startsWith("\\") ? m + m : `\\x${m.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}
