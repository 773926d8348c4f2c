import { createHash } from "node:crypto";
import path from "node:path";
import type { IndexRecord } from "./index-file.js";
import { replaceThroughLock } from "./lock-file.js";

const NAME_MASK = 0xfff;
const EXTENDED = 0x4000;
const ASSUME_VALID = 0x8000;

/** Git's order of index entries: by name bytes, then by stage. */
export function indexOrder(a: IndexRecord, b: IndexRecord): number {
  return Buffer.compare(a.name, b.name) || a.stage - b.stage;
}

/** The bytes an entry takes in index versions 2 and 3: stat data, id, flags, extended flags (when set), name, 1 to 8 NULs to a multiple of 8. */
function entrySize(e: IndexRecord): number {
  const length = 40 + 20 + 2 + (e.extended ? 2 : 0) + e.name.length;
  return length + 8 - (length % 8);
}

/** Writes one entry as index versions 2 and 3 hold it into `out` (zero-filled) at `at`; returns where the next one starts. */
function writeEntry(out: Buffer, at: number, e: IndexRecord): number {
  const flags = Math.min(e.name.length, NAME_MASK) | (e.stage << 12) | (e.assumeValid ? ASSUME_VALID : 0) | (e.extended ? EXTENDED : 0);
  e.stat.copy(out, at, 0, 40);
  out.write(e.oid, at + 40, 20, "hex");
  out.writeUInt16BE(flags, at + 60);
  if (e.extended) out.writeUInt16BE(e.extended, at + 62);
  e.name.copy(out, at + 62 + (e.extended ? 2 : 0));
  return at + entrySize(e);
}

/**
 * Writes `entries` (SHA-1 ids, in any order) as the index of `gitDir`, in git's own format: version 3
 * when an entry has extended flags, else version 2, then `extensions` (each already in git's
 * `signature, size, data` form; none by default: git rebuilds its cache of trees when it needs one), the
 * SHA-1 of the whole file at its end. Written through `index.lock` and renamed into place as git does;
 * false, with nothing changed, when the lock is taken.
 */
export function writeIndexFile(gitDir: string, entries: readonly IndexRecord[], extensions: readonly Buffer[] = []): boolean {
  return replaceThroughLock(path.join(gitDir, "index"), indexFileBytes(entries, extensions));
}

/** The bytes of the index file `writeIndexFile` writes. */
export function indexFileBytes(entries: readonly IndexRecord[], extensions: readonly Buffer[] = []): Buffer {
  const sorted = [...entries].sort(indexOrder);
  const size = 12 + sorted.reduce((n, e) => n + entrySize(e), 0) + extensions.reduce((n, x) => n + x.length, 0);
  const out = Buffer.alloc(size + 20);
  out.write("DIRC", 0, "latin1");
  out.writeUInt32BE(sorted.some((e) => e.extended !== 0) ? 3 : 2, 4);
  out.writeUInt32BE(sorted.length, 8);
  let at = 12;
  for (const e of sorted) at = writeEntry(out, at, e);
  for (const x of extensions) at += x.copy(out, at);
  createHash("sha1").update(out.subarray(0, size)).digest().copy(out, size);
  return out;
}
