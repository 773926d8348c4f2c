#!/usr/bin/env node
// The README's table of contents, made from its ## and ### headings (outside code blocks), between the
// <!-- toc --> and <!-- /toc --> lines. `node scripts/readme-toc.js` rewrites it; `--check` exits 1 when it
// is stale (test/architecture/docs.test.ts runs the same check).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const README = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "README.md");
const START = "<!-- toc -->";
const END = "<!-- /toc -->";

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchor(heading, taken) {
  const base = heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
  const n = taken.get(base) ?? 0;
  taken.set(base, n + 1);
  return n === 0 ? base : `${base}-${n}`;
}

/** The headings of a Markdown text outside fenced code blocks, with their levels. */
export function headings(text) {
  const out = [];
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = !fenced && /^(#{1,6}) (.+)$/.exec(line);
    if (m) out.push({ level: m[1].length, text: m[2].trim() });
  }
  return out;
}

/** The table of contents of a README text. */
export function toc(text) {
  const taken = new Map();
  const lines = [];
  for (const h of headings(text)) {
    const id = anchor(h.text, taken);
    if (h.level < 2 || h.level > 3 || h.text === "Contents") continue;
    lines.push(`${h.level === 3 ? "  " : ""}- [${h.text.replace(/[[\]]/g, "\\$&")}](#${id})`);
  }
  return lines.join("\n");
}

/** The README with its table of contents made anew. */
export function withToc(text) {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${START} … ${END} block`);
  return `${text.slice(0, start + START.length)}\n${toc(text)}\n${text.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = readFileSync(README, "utf8");
  const next = withToc(text);
  if (process.argv.includes("--check")) {
    if (next !== text) {
      console.error("README.md's table of contents is stale: run node scripts/readme-toc.js");
      process.exit(1);
    }
  } else if (next !== text) {
    writeFileSync(README, next);
  }
}
