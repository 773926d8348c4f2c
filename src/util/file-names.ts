import { createHash } from "node:crypto";

/** Longest text kept whole as a name; longer text is cut and given a digest. */
const MAX_PLAIN_NAME = 100;
/** Characters of the readable prefix kept before the digest when a text is changed or cut. */
const PREFIX = 60;
/** Hex digits of the SHA-256 digest of the whole text. */
const DIGEST = 16;

/**
 * A bounded, safe file name for any text (a sample id, a result key, a run label): at most 77 or
 * MAX_PLAIN_NAME ASCII bytes of letters, digits, `.`, `_`, `-` and `mark`, never starting with anything
 * but a letter or digit (so never `.`, `..`, a hidden name or an option), never holding `/`, NUL or a
 * control character. A text that already is such a name is kept as it is; any other becomes a readable
 * prefix, `mark`, and a digest of the whole text. Distinct texts get distinct names: a kept name never
 * ends like a digested one (with `~`, the default mark, it cannot hold the mark at all; a text ending in
 * `mark` and 16 hex digits is digested too). `mark` is `-` where the name must fit a stricter pattern
 * (Harbor's task names).
 */
export function safeFileName(text: string, mark: "~" | "-" = "~"): string {
  const digested = new RegExp(`${mark === "-" ? "-" : "~"}[0-9a-f]{${DIGEST}}$`);
  if (/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(text) && text.length <= MAX_PLAIN_NAME && !digested.test(text)) return text;
  const prefix = text.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[^A-Za-z0-9]+/, "").slice(0, PREFIX);
  const digest = createHash("sha256").update(text, "utf8").digest("hex").slice(0, DIGEST);
  return `${prefix === "" ? "id" : prefix}${mark}${digest}`;
}
