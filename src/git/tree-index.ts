import type { CatFile } from "./catfile.js";
import type { IndexRecord } from "./index-file.js";
import { parseTree } from "./treewalk.js";

const TYPE_MASK = 0o170000;
const REGULAR = 0o100000;
const LINK = 0o120000;
const DIRECTORY = 0o040000;
const GITLINK = 0o160000;
/** ctime, mtime, dev, ino, mode, uid, gid, size: all zero but the mode, as `read-tree` leaves them (every file is looked at again). */
const STAT_BYTES = 40;
const STAT_MODE_AT = 24;

/** A tree entry's mode as git takes it into an index (git's `canon_mode`): a regular file 644 or 755, a link, a tree, else a submodule commit. */
function canonicalMode(mode: number): number {
  switch (mode & TYPE_MASK) {
    case REGULAR:
      return REGULAR | (mode & 0o100 ? 0o755 : 0o644);
    case LINK:
      return LINK;
    case DIRECTORY:
      return DIRECTORY;
    default:
      return GITLINK;
  }
}

/**
 * Whether git takes a path component of this name (its bytes, one character each) into an index without
 * a doubt. Git refuses `.`, `..`, `.git` and its NTFS spellings (`.git` followed by dots or spaces,
 * `git~1`) everywhere, and `.gitmodules` and its short names as links: each of those, and any name near
 * them (a `~` in a link's name), is left to git itself. (HFS's spellings are refused only where
 * core.protectHFS is set, which gitgood's git processes never read: no system configuration.)
 */
function plainComponent(name: string, link: boolean): boolean {
  if (name === "" || name === "." || name === ".." || name.includes("/")) return false;
  const lower = name.toLowerCase();
  if (/^(\.git|git~1)[. ]*$/.test(lower)) return false;
  return !(link && (lower.startsWith(".gitmodules") || lower.includes("~")));
}

/**
 * The entries `git read-tree TREE` writes into a new index, read through a long-lived `cat-file` instead
 * of a git process: every file, link and submodule commit of the tree with its canonical mode and its id,
 * stat data zeroed (so git looks at every file again, as after `read-tree`). Null where git's own answer
 * is needed: an object the reader cannot find or that is no tree, ids that are not SHA-1, or a name git
 * may refuse (see `plainComponent`), or a path twice. Subtrees are asked for a level at a time (the
 * reader answers in order).
 */
export async function treeIndexEntries(reader: CatFile, tree: string): Promise<IndexRecord[] | null> {
  const top = await reader.read(`${tree}^{tree}`);
  if (!top || top.type !== "tree" || top.oid.length !== 40) return null;
  const entries: IndexRecord[] = [];
  let level: { prefix: Buffer; content: Buffer }[] = [{ prefix: Buffer.alloc(0), content: top.content }];
  while (level.length > 0) {
    const subtrees: { prefix: Buffer; oid: string }[] = [];
    for (const { prefix, content } of level) {
      for (const e of parseTree(content, 20)) {
        const raw = Number.parseInt(e.mode, 8);
        if (!Number.isInteger(raw)) return null;
        const mode = canonicalMode(raw);
        const bytes = e.key.endsWith("/") && e.mode === "040000" ? e.key.slice(0, -1) : e.key;
        if (!plainComponent(bytes, mode === LINK)) return null;
        const name = Buffer.concat([prefix, Buffer.from(bytes, "latin1")]);
        if (mode === DIRECTORY) {
          subtrees.push({ prefix: Buffer.concat([name, Buffer.from("/")]), oid: e.oid });
          continue;
        }
        const stat = Buffer.alloc(STAT_BYTES);
        stat.writeUInt32BE(mode, STAT_MODE_AT);
        entries.push({ path: name.toString("utf8"), name, mode: mode.toString(8).padStart(6, "0"), oid: e.oid, stage: 0, stat, assumeValid: false, extended: 0 });
      }
    }
    const read = await Promise.all(subtrees.map((s) => reader.read(s.oid)));
    level = [];
    for (const [i, object] of read.entries()) {
      if (!object || object.type !== "tree") return null;
      level.push({ prefix: (subtrees[i] as { prefix: Buffer }).prefix, content: object.content });
    }
  }
  return noClashes(entries) ? entries : null;
}

/** Whether no path comes twice (a damaged tree's: `read-tree` keeps the last of them). */
function noClashes(entries: readonly IndexRecord[]): boolean {
  return new Set(entries.map((e) => e.name.toString("latin1"))).size === entries.length;
}
