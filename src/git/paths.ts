import { GitGoodError } from "../errors.js";
import { at } from "../util/at.js";

/**
 * File names as git stores them are bytes, usually but not always UTF-8. gitgood keeps them as bytes
 * (a Buffer) wherever it touches git or the disk, and shows them to agents (and saves them in state)
 * in one text notation that maps every byte string to exactly one string and back:
 *
 * - a name of printable UTF-8 without `"` or `\` is shown as it is (`src/app.py`, `héllo.py`);
 * - any other name is shown the way git quotes names, C-style in double quotes: `\"`, `\\`, `\a`, `\b`,
 *   `\t`, `\n`, `\v`, `\f`, `\r`, and every other control character or byte that is not part of valid
 *   UTF-8 as a three-digit octal escape. `caf\xe9.py` in Latin-1 is `"caf\351.py"`, as `git diff` writes it.
 *
 * Read back, a string that starts with `"` is such a quoted name (git's own quoting of UTF-8 names,
 * `"h\303\251llo.py"`, and `\xHH` escapes are read too); any other string is the UTF-8 bytes of itself.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NAMED_ESCAPES: ReadonlyMap<number, string> = new Map([
  [0x07, "a"],
  [0x08, "b"],
  [0x09, "t"],
  [0x0a, "n"],
  [0x0b, "v"],
  [0x0c, "f"],
  [0x0d, "r"],
  [QUOTE, '"'],
  [BACKSLASH, "\\"],
]);
const ESCAPED_BYTES: ReadonlyMap<string, number> = new Map([...NAMED_ESCAPES].map(([byte, letter]) => [letter, byte]));

/** Length of the valid UTF-8 sequence at `i` (1 to 4), or 0 when the byte there does not start one. */
function sequenceLength(b: Buffer, i: number): number {
  const lead = at(b, i);
  if (lead < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => {
    const c = b[i + k];
    return c !== undefined && c >= lo && c <= hi;
  };
  if (lead >= 0xc2 && lead <= 0xdf) return cont(1) ? 2 : 0;
  if (lead === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if (lead === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (lead >= 0xe1 && lead <= 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (lead === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (lead >= 0xf1 && lead <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (lead === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** A control character (C0, DEL, or C1 as UTF-8) that a terminal may act on. */
function isControl(b: Buffer, i: number, length: number): boolean {
  const lead = at(b, i);
  if (length === 1) return lead < 0x20 || lead === 0x7f;
  return length === 2 && lead === 0xc2 && at(b, i + 1) < 0xa0;
}

function octal(byte: number): string {
  return `\\${byte.toString(8).padStart(3, "0")}`;
}

/**
 * Quotes bytes C-style when they need it. With `keepUtf8`, printable UTF-8 characters stay as they are
 * (the notation agents see); without, every byte from 0x80 up is escaped too (git's `core.quotePath`).
 */
function quote(bytes: Buffer, keepUtf8: boolean): string {
  const literal = (i: number, n: number): boolean =>
    n > 0 && !isControl(bytes, i, n) && bytes[i] !== QUOTE && bytes[i] !== BACKSLASH && (keepUtf8 || n === 1);
  let plain = true;
  for (let i = 0; i < bytes.length && plain; ) {
    const n = sequenceLength(bytes, i);
    plain = literal(i, n);
    i += Math.max(n, 1);
  }
  if (plain) return bytes.toString("utf8");
  let out = '"';
  for (let i = 0; i < bytes.length; ) {
    const n = sequenceLength(bytes, i);
    const named = NAMED_ESCAPES.get(at(bytes, i));
    if (literal(i, n)) out += bytes.toString("utf8", i, i + n);
    else if (n === 1 && named !== undefined) out += `\\${named}`;
    else for (let k = 0; k < Math.max(n, 1); k++) out += octal(at(bytes, i + k));
    i += Math.max(n, 1);
  }
  return `${out}"`;
}

/** The notation of a path's bytes (see above). */
export function showPath(bytes: Buffer): string {
  return quote(bytes, true);
}

/** A path as git writes it in patch headers with `core.quotePath=true` (to find a file's section). */
export function gitQuotedPath(bytes: Buffer): string {
  return quote(bytes, false);
}

/**
 * The bytes a path notation stands for. A quoted notation that is malformed (no closing quote, text
 * after it, an unknown escape) is refused with BAD_PATH.
 */
export function parsePath(text: string): Buffer {
  if (!text.startsWith('"')) return Buffer.from(text, "utf8");
  const bad = (why: string): never => {
    throw new GitGoodError("BAD_PATH", `path ${text} is not a valid quoted path: ${why}`, { path: text });
  };
  const bytes: number[] = [];
  let i = 1;
  for (;;) {
    if (i >= text.length) bad("it has no closing quote");
    const ch = at(text, i);
    if (ch === '"') break;
    if (ch !== "\\") {
      const cp = text.codePointAt(i) as number;
      const s = String.fromCodePoint(cp);
      bytes.push(...Buffer.from(s, "utf8"));
      i += s.length;
      continue;
    }
    const next = text[i + 1] ?? "";
    const oct = /^[0-7]{1,3}/.exec(text.slice(i + 1, i + 4))?.[0];
    const hex = next === "x" ? /^[0-9A-Fa-f]{2}/.exec(text.slice(i + 2, i + 4))?.[0] : undefined;
    if (oct !== undefined) {
      const value = parseInt(oct, 8);
      if (value > 0xff) bad(`\\${oct} is not a byte`);
      bytes.push(value);
      i += 1 + oct.length;
    } else if (hex !== undefined) {
      bytes.push(parseInt(hex, 16));
      i += 4;
    } else if (ESCAPED_BYTES.has(next)) {
      bytes.push(ESCAPED_BYTES.get(next) as number);
      i += 2;
    } else bad(`'\\${next}' is not an escape (use \\\\ for a backslash)`);
  }
  if (i !== text.length - 1) bad("there is text after the closing quote");
  return Buffer.from(bytes);
}

/** Whether a string is a path notation that reads back (used to check saved state). */
export function isPathNotation(text: string): boolean {
  try {
    parsePath(text);
    return true;
  } catch {
    return false;
  }
}

/** True when the bytes are valid UTF-8, so the path can be given to git on its command line. */
export function isUtf8Path(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; ) {
    const n = sequenceLength(bytes, i);
    if (n === 0) return false;
    i += n;
  }
  return true;
}
