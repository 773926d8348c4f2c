import { GitGoodError } from "../errors.js";
import { at } from "../util/at.js";

/** A value a Python literal can denote here: tuples become arrays, dicts become plain objects. */
export type PyValue = null | boolean | number | string | PyValue[] | { [key: string]: PyValue };

const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

function fail(message: string, position: number): never {
  throw new GitGoodError("BAD_LITERAL", `${message} at position ${position}`, { position });
}

function describe(ch: string | undefined): string {
  if (ch === undefined) return "end of input";
  return `'${ch === "\n" ? "\\n" : ch}'`;
}

/**
 * Parses one Python literal (what `repr` of dicts, lists, tuples, strings, numbers, booleans and None
 * produces), exactly and without evaluating anything. Dict keys must be strings. Errors carry the
 * 0-based character position where the input stops making sense.
 */
export function parsePythonLiteral(text: string): PyValue {
  const parser = new LiteralParser(text);
  parser.skipSpace();
  const value = parser.value();
  parser.skipSpace();
  if (parser.pos < text.length) fail(`unexpected ${describe(text[parser.pos])} after the value`, parser.pos);
  return value;
}

class LiteralParser {
  pos = 0;
  constructor(private readonly src: string) {}

  skipSpace(): void {
    while (this.pos < this.src.length && /[ \t\r\n]/.test(this.src[this.pos] ?? "")) this.pos++;
  }

  private peek(): string | undefined {
    return this.src[this.pos];
  }

  value(): PyValue {
    const ch = this.peek();
    if (ch === "{") return this.dict();
    if (ch === "[") return this.sequence("[", "]");
    if (ch === "(") return this.parenthesised();
    if (ch === "'" || ch === '"') return this.string(false);
    if (ch !== undefined && /[uUrR]/.test(ch) && /['"]/.test(this.src[this.pos + 1] ?? "")) {
      this.pos++;
      return this.string(ch === "r" || ch === "R");
    }
    if (ch !== undefined && /[-+0-9.]/.test(ch)) return this.number();
    if (ch !== undefined && /[A-Za-z_]/.test(ch)) return this.name();
    return fail(`unexpected ${describe(ch)}`, this.pos);
  }

  private expect(ch: string): void {
    if (this.peek() !== ch) fail(`expected '${ch}' but found ${describe(this.peek())}`, this.pos);
    this.pos++;
  }

  private dict(): { [key: string]: PyValue } {
    const start = this.pos;
    this.expect("{");
    const entries: [string, PyValue][] = [];
    const seen = new Set<string>();
    this.skipSpace();
    while (this.peek() !== "}") {
      const keyAt = this.pos;
      const key = this.value();
      if (typeof key !== "string") fail("dict keys must be strings", keyAt);
      if (seen.has(key)) fail(`duplicate dict key '${key}'`, keyAt);
      seen.add(key);
      this.skipSpace();
      this.expect(":");
      this.skipSpace();
      entries.push([key, this.value()]);
      if (!this.separator("}")) break;
    }
    if (this.peek() === undefined) fail(`unterminated dict (opened at ${start})`, this.pos);
    this.expect("}");
    return Object.fromEntries(entries);
  }

  /** After an item: consumes `,` and following space; returns false when the closer comes next. */
  private separator(closer: string): boolean {
    this.skipSpace();
    if (this.peek() === ",") {
      this.pos++;
      this.skipSpace();
      return true;
    }
    if (this.peek() !== closer) fail(`expected ',' or '${closer}' but found ${describe(this.peek())}`, this.pos);
    return false;
  }

  private sequence(open: string, close: string): PyValue[] {
    const start = this.pos;
    this.expect(open);
    const items: PyValue[] = [];
    this.skipSpace();
    while (this.peek() !== close) {
      if (this.peek() === undefined) break;
      items.push(this.value());
      if (!this.separator(close)) break;
    }
    if (this.peek() === undefined) fail(`unterminated '${open}' (opened at ${start})`, this.pos);
    this.expect(close);
    return items;
  }

  /** `()` and `(a, …)` are tuples; `(a)` is just a parenthesised `a`, as in Python. */
  private parenthesised(): PyValue {
    const start = this.pos;
    this.pos++;
    this.skipSpace();
    if (this.peek() === ")") {
      this.pos++;
      return [];
    }
    if (this.peek() === undefined) fail(`unterminated '(' (opened at ${start})`, this.pos);
    const first = this.value();
    this.skipSpace();
    if (this.peek() === ")") {
      this.pos++;
      return first;
    }
    const items = [first];
    while (this.separator(")")) {
      if (this.peek() === ")") break;
      if (this.peek() === undefined) break;
      items.push(this.value());
    }
    if (this.peek() === undefined) fail(`unterminated '(' (opened at ${start})`, this.pos);
    this.expect(")");
    return items;
  }

  private name(): PyValue {
    const start = this.pos;
    while (this.pos < this.src.length && /[A-Za-z0-9_]/.test(this.src[this.pos] ?? "")) this.pos++;
    const word = this.src.slice(start, this.pos);
    if (word === "True") return true;
    if (word === "False") return false;
    if (word === "None") return null;
    return fail(`unknown name '${word}' (only True, False and None are literals)`, start);
  }

  private number(): number {
    const start = this.pos;
    const match = /^[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)/.exec(this.src.slice(start));
    if (!match) return fail(`malformed number`, start);
    const text = match[0];
    const after = this.src[start + text.length];
    if (after !== undefined && /[A-Za-z0-9_.]/.test(after)) fail(`malformed number`, start);
    const isInt = /^[-+]?\d+$/.test(text);
    if (isInt && /^[-+]?0\d/.test(text)) fail("integers may not have leading zeros", start);
    const value = Number(text);
    if (isInt && !Number.isSafeInteger(value)) fail(`integer ${text} is too large`, start);
    if (!Number.isFinite(value)) fail(`number ${text} is out of range`, start);
    this.pos += text.length;
    return value;
  }

  /** A quoted string; the position is at the opening quote (any prefix already consumed). */
  private string(raw: boolean): string {
    const quote = this.peek() as string;
    const start = this.pos;
    this.pos++;
    let out = "";
    for (;;) {
      const ch = this.src[this.pos];
      if (ch === undefined) fail(`unterminated string (opened at ${start})`, this.pos);
      if (ch === quote) {
        this.pos++;
        return out;
      }
      if (ch === "\n" || ch === "\r") fail(`line break inside a string (opened at ${start})`, this.pos);
      if (ch !== "\\") {
        out += ch;
        this.pos++;
        continue;
      }
      const next = this.src[this.pos + 1];
      if (next === undefined) fail(`unterminated string (opened at ${start})`, this.pos + 1);
      if (raw) {
        // In a raw string a backslash stays, and only keeps the next character from ending the string.
        out += ch + next;
        this.pos += 2;
        continue;
      }
      out += this.escape();
    }
  }

  /** Decodes one escape sequence; the position is at the backslash. */
  private escape(): string {
    const start = this.pos;
    const next = at(this.src, start + 1);
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      this.pos += 2;
      return simple;
    }
    if (next === "\n") {
      this.pos += 2;
      return "";
    }
    if (/[0-7]/.test(next)) {
      const digits = /^[0-7]{1,3}/.exec(this.src.slice(start + 1))?.[0] ?? next;
      this.pos += 1 + digits.length;
      return String.fromCodePoint(parseInt(digits, 8));
    }
    const width = next === "x" ? 2 : next === "u" ? 4 : next === "U" ? 8 : 0;
    if (width > 0) {
      const hex = this.src.slice(start + 2, start + 2 + width);
      if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) fail(`truncated \\${next} escape`, start);
      const code = parseInt(hex, 16);
      if (code > 0x10ffff) fail(`\\${next} escape out of range`, start);
      this.pos += 2 + width;
      return String.fromCodePoint(code);
    }
    if (next === "N") fail("\\N{...} escapes are not supported", start);
    // Python keeps unknown escapes as they are, backslash included.
    this.pos += 2;
    return `\\${next}`;
  }
}

/** Writes a value the way Python's `repr` would, so `parsePythonLiteral` reads it back unchanged. */
export function formatPythonLiteral(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new GitGoodError("BAD_LITERAL", `cannot write ${value} as a Python literal`);
    return String(value);
  }
  if (typeof value === "string") return pythonRepr(value);
  if (Array.isArray(value)) return `[${value.map(formatPythonLiteral).join(", ")}]`;
  if (typeof value === "object") {
    const parts = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${pythonRepr(k)}: ${formatPythonLiteral(v)}`);
    return `{${parts.join(", ")}}`;
  }
  throw new GitGoodError("BAD_LITERAL", `cannot write a ${typeof value} as a Python literal`);
}

function pythonRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0) as number;
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return out + quote;
}
