import { randomBytes } from "node:crypto";

/**
 * Fences for text a judge must read as data. Each request gets a fence whose token is 128 random bits,
 * drawn after the text is known (and drawn again should the text hold it), so no text can end a fence
 * it sits in: the agent wrote its commits before the token existed. Text is also neutralised, so it
 * cannot even look like a fence or like one of the fixed markers earlier judge prompts used.
 */
export interface Fence {
  /** The random token every fence line of this request carries. */
  readonly token: string;
  /** The fence line that begins or ends the block named `label` (e.g. "history 1"). */
  line(label: string, edge: "begin" | "end"): string;
  /** `body`, neutralised, between the begin and the end line of `label`. */
  wrap(label: string, body: string): string;
}

/** The characters that open and close a fence line; in fenced text they become ASCII brackets. */
const FENCE_OPEN = "⟦";
const FENCE_CLOSE = "⟧";
/** Characters of a token (hex of 16 random bytes). */
const FENCE_TOKEN_CHARS = 32;

/** Lines that look like the structure of a judge prompt, this one's or an earlier fixed one's. */
const MARKER_LINE = /^\s*(?:history \d+\s*:|commit \d+ of \d+\s*:|={3,}|which history is better\??|-{0,2}\s*(?:begin|end) (?:of )?history\b)/i;

/**
 * `text` as it goes inside a fence: the fence's brackets become `[[`/`]]` and a line that looks like
 * a prompt marker gets a `\` in front, so it reads as quoted text. Anything else is left as it was.
 */
export function neutralise(text: string): string {
  const plain = text.replaceAll(FENCE_OPEN, "[[").replaceAll(FENCE_CLOSE, "]]");
  if (!/[=:?]|begin|end/i.test(plain)) return plain;
  return plain
    .split("\n")
    .map((line) => (MARKER_LINE.test(line) ? `\\${line}` : line))
    .join("\n");
}

function fenceWith(token: string): Fence {
  const line = (label: string, edge: "begin" | "end"): string => `${FENCE_OPEN}${label} ${edge} · ${token}${FENCE_CLOSE}`;
  return {
    token,
    line,
    wrap: (label, body) => `${line(label, "begin")}\n${neutralise(body).replace(/\n?$/, "\n")}${line(label, "end")}`,
  };
}

/** A new fence for one request over `texts` (everything it will wrap): its token occurs in none of them. */
export function newFence(texts: readonly string[]): Fence {
  for (;;) {
    const token = randomBytes(FENCE_TOKEN_CHARS / 2).toString("hex");
    if (!texts.some((t) => t.includes(token))) return fenceWith(token);
  }
}

/** A fence of a token's length with no randomness, for sizing a request before it is built. */
export function sizingFence(): Fence {
  return fenceWith("0".repeat(FENCE_TOKEN_CHARS));
}
