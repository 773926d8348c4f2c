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

/** One entry as index versions 2 and 3 write it: stat data, id, flags, extended flags (version 3, when set), name, NUL padding to 8 bytes. */
function entryBytes(e: IndexRecord): Buffer {
  const flags = Math.min(e.name.length, NAME_MASK) | (e.stage << 12) | (e.assumeValid ? ASSUME_VALID : 0) | (e.extended ? EXTENDED : 0);
  const fixed = Buffer.alloc(2 + (e.extended ? 2 : 0));
  fixed.writeUInt16BE(flags, 0);
  if (e.extended) fixed.writeUInt16BE(e.extended, 2);
  const length = e.stat.length + 20 + fixed.length + e.name.length;
  const padding = Buffer.alloc(8 - (length % 8));
  return Buffer.concat([e.stat, Buffer.from(e.oid, "hex"), fixed, e.name, padding]);
}

/**
 * Writes `entries` (SHA-1 ids, in any order) as the index of `gitDir`, in git's own format: version 3
 * when an entry has extended flags, else version 2, no extensions (git rebuilds its cache of trees when
 * it needs one), the SHA-1 of the whole file at its end. Written through `index.lock` and renamed into
 * place as git does; false, with nothing changed, when the lock is taken.
 */
export function writeIndexFile(gitDir: string, entries: readonly IndexRecord[]): boolean {
  const sorted = [...entries].sort(indexOrder);
  const header = Buffer.alloc(12);
  header.write("DIRC", 0, "latin1");
  header.writeUInt32BE(sorted.some((e) => e.extended !== 0) ? 3 : 2, 4);
  header.writeUInt32BE(sorted.length, 8);
  const body = Buffer.concat([header, ...sorted.map(entryBytes)]);
  const file = Buffer.concat([body, createHash("sha1").update(body).digest()]);
  return replaceThroughLock(path.join(gitDir, "index"), file);
}
