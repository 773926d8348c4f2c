import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";

/** One entry of a git index: a path at a merge stage, with its mode and object id. */
export interface IndexEntry {
  path: string;
  /** The path's bytes as git stores them (`path` reads them as UTF-8). */
  name: Buffer;
  /** The mode as git writes it in octal (`100644`, `100755`, `120000`, `160000`). */
  mode: string;
  oid: string;
  /** 0 for a merged entry, 1–3 for the sides of a conflict. */
  stage: number;
}

/** The fixed part of an entry before its object id: ctime, mtime, dev, ino, mode, uid, gid, size. */
const STAT_BYTES = 40;
/** Where the mode sits in the stat data. */
const STAT_MODE_AT = 24;
const EXTENDED = 0x4000;
const ASSUME_VALID = 0x8000;
const GITLINK_OR_DIR = 0o040000;

/** Whether the repository at `gitDir` names its objects with SHA-256 (its config says so). */
export function usesSha256(gitDir: string): boolean {
  try {
    return /^\s*objectformat\s*=\s*sha256\s*$/im.test(readFileSync(path.join(gitDir, "config"), "utf8"));
  } catch {
    return false;
  }
}

/** A variable-length offset as index version 4 writes it (git's `decode_varint`). */
function varint(buf: Buffer, at: number): { value: number; next: number } | null {
  let i = at;
  let byte = buf[i++];
  if (byte === undefined) return null;
  let value = byte & 0x7f;
  while (byte & 0x80) {
    byte = buf[i++];
    if (byte === undefined) return null;
    value = ((value + 1) << 7) | (byte & 0x7f);
  }
  return { value, next: i };
}

/** An index entry with what a writer keeps of it: its stat data and its flags. */
export interface IndexRecord extends IndexEntry {
  /** ctime, mtime, dev, ino, mode, uid, gid and size as the file holds them (40 bytes). */
  stat: Buffer;
  /** The assume-valid bit of the entry's flags. */
  assumeValid: boolean;
  /** The extended flags (skip-worktree, intent-to-add) of an index of version 3 or 4; 0 without. */
  extended: number;
}

/** An index file's version and entries. */
export interface IndexContent {
  version: number;
  entries: IndexRecord[];
}

/**
 * The entries of the index file `file` of the repository at `gitDir` (index versions 2, 3 and 4), read
 * without a git process. Null when the file is missing, damaged, or of a form this reader does not take
 * (another version, a sparse index's directory entries): the caller then asks git. Only for a git
 * directory of gitgood's own: an index someone else wrote is not to be trusted to be well-formed.
 */
export function readIndexFile(gitDir: string, file = path.join(gitDir, "index")): IndexEntry[] | null {
  return readIndexContent(gitDir, file)?.entries.map(({ path, name, mode, oid, stage }) => ({ path, name, mode, oid, stage })) ?? null;
}

/** The version and entries of an index file, stat data and flags included, as `readIndexFile` reads them; null where it gives null. */
export function readIndexContent(gitDir: string, file = path.join(gitDir, "index")): IndexContent | null {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch {
    return null;
  }
  const oidBytes = usesSha256(gitDir) ? 32 : 20;
  if (buf.length < 12 + oidBytes || buf.toString("latin1", 0, 4) !== "DIRC") return null;
  const algo = oidBytes === 32 ? "sha256" : "sha1";
  const body = buf.length - oidBytes;
  if (!createHash(algo).update(buf.subarray(0, body)).digest().equals(buf.subarray(body))) return null;
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const count = buf.readUInt32BE(8);
  const entries: IndexRecord[] = [];
  let at = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let n = 0; n < count; n++) {
    const start = at;
    if (at + STAT_BYTES + oidBytes + 2 > body) return null;
    const mode = buf.readUInt32BE(at + 24);
    const oid = buf.toString("hex", at + STAT_BYTES, at + STAT_BYTES + oidBytes);
    const flags = buf.readUInt16BE(at + STAT_BYTES + oidBytes);
    at += STAT_BYTES + oidBytes + 2;
    let extended = 0;
    if (flags & EXTENDED) {
      if (version < 3) return null;
      extended = buf.readUInt16BE(at);
      at += 2;
    }
    let name: Buffer;
    if (version === 4) {
      const strip = varint(buf, at);
      if (strip === null || strip.value > previous.length) return null;
      const end = buf.indexOf(0, strip.next);
      if (end === -1 || end >= body) return null;
      name = Buffer.concat([previous.subarray(0, previous.length - strip.value), buf.subarray(strip.next, end)]);
      at = end + 1;
    } else {
      const end = buf.indexOf(0, at);
      if (end === -1 || end >= body) return null;
      name = buf.subarray(at, end);
      // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
      at = start + Math.floor((end - start + 8) / 8) * 8;
    }
    // A sparse index's directory entry stands for a whole tree: not a file list this reader can give.
    if ((mode & 0o170000) === GITLINK_OR_DIR) return null;
    previous = name;
    entries.push({
      path: name.toString("utf8"),
      name,
      mode: mode.toString(8).padStart(6, "0"),
      oid,
      stage: (flags >> 12) & 3,
      stat: buf.subarray(start, start + STAT_BYTES),
      assumeValid: (flags & ASSUME_VALID) !== 0,
      extended,
    });
  }
  // A split index keeps most entries in a shared file its `link` extension names: this file alone is not the list.
  while (at + 8 <= body) {
    if (buf.toString("latin1", at, at + 4) === "link") return null;
    at += 8 + buf.readUInt32BE(at + 4);
  }
  return { version, entries };
}

/**
 * The entries of an index file of gitgood's own (see `readIndexContent`) as the start of a new index for
 * the same tree: stat data zeroed but the mode, so git looks at every file again, as after `read-tree`.
 * Null where the file cannot be read, its ids are SHA-256 (`writeIndexFile` writes SHA-1 indexes), or an
 * entry is more than a plain tracked file (a conflict's stage, the assume-valid bit, skip-worktree or
 * intent-to-add): git's `read-tree` is then asked instead.
 */
export function freshIndexEntries(gitDir: string, file = path.join(gitDir, "index")): IndexRecord[] | null {
  if (usesSha256(gitDir)) return null;
  const content = readIndexContent(gitDir, file);
  if (content === null || content.entries.some((e) => e.stage !== 0 || e.assumeValid || e.extended !== 0)) return null;
  return content.entries.map((e) => {
    const stat = Buffer.alloc(STAT_BYTES);
    stat.writeUInt32BE(Number.parseInt(e.mode, 8), STAT_MODE_AT);
    return { ...e, stat };
  });
}

/** The object id git gives `content` as a blob, in the hash of an index's entries (`oid`'s length says which). */
export function blobId(content: Buffer, like: string): string {
  return createHash(like.length === 64 ? "sha256" : "sha1")
    .update(`blob ${content.length}\0`)
    .update(content)
    .digest("hex");
}
