import type { IndexEntry } from "./index-file.js";
import { objectId, writeLooseObject } from "./object-write.js";

/** A folder of the tree being built: its files and its sub-folders by name (latin1 keys keep bytes). */
interface Folder {
  files: Map<string, { mode: string; oid: string }>;
  folders: Map<string, Folder>;
}

/** A tree object ready to write: its id, its bytes, and the trees it names. */
interface BuiltTree {
  oid: string;
  content: Buffer;
  children: BuiltTree[];
}

const SLASH = 0x2f;

function newFolder(): Folder {
  return { files: new Map(), folders: new Map() };
}

/** A path component git never records: empty, `.`, `..` or `.git` (any case). */
function badComponent(part: string): boolean {
  return part === "" || part === "." || part === ".." || part.toLowerCase() === ".git";
}

/** The folders of the merged (stage 0) entries; null for an unmerged entry or a path git never writes into a tree. */
function foldersOf(entries: readonly IndexEntry[]): Folder | null {
  const root = newFolder();
  for (const e of entries) {
    if (e.stage !== 0) return null;
    const parts: string[] = [];
    let from = 0;
    for (let at = e.name.indexOf(SLASH); at !== -1; at = e.name.indexOf(SLASH, from)) {
      parts.push(e.name.toString("latin1", from, at));
      from = at + 1;
    }
    parts.push(e.name.toString("latin1", from));
    if (parts.some(badComponent)) return null;
    const file = parts.pop() ?? "";
    let folder = root;
    for (const part of parts) {
      if (folder.files.has(part)) return null;
      let next = folder.folders.get(part);
      if (!next) {
        next = newFolder();
        folder.folders.set(part, next);
      }
      folder = next;
    }
    if (folder.folders.has(file) || folder.files.has(file)) return null;
    folder.files.set(file, { mode: e.mode, oid: e.oid });
  }
  return root;
}

/** Git's order of a tree's entries: by name bytes, a folder's name read as if it ended in `/`. */
function treeOrder(a: { key: string }, b: { key: string }): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** The tree object of `folder` and of every folder below it, ids computed, nothing written. */
function build(folder: Folder): BuiltTree {
  const children: BuiltTree[] = [];
  const rows: { key: string; bytes: Buffer }[] = [];
  for (const [name, sub] of folder.folders) {
    const tree = build(sub);
    children.push(tree);
    rows.push({ key: `${name}/`, bytes: Buffer.concat([Buffer.from(`40000 ${name}\0`, "latin1"), Buffer.from(tree.oid, "hex")]) });
  }
  for (const [name, { mode, oid }] of folder.files) {
    rows.push({ key: name, bytes: Buffer.concat([Buffer.from(`${mode.replace(/^0+/, "")} ${name}\0`, "latin1"), Buffer.from(oid, "hex")]) });
  }
  const content = Buffer.concat(rows.sort(treeOrder).map((r) => r.bytes));
  return { oid: objectId("tree", content), content, children };
}

/** Writes `tree` and the trees below it that the store lacks, from the top: a tree the store has holds the rest. */
async function put(gitDir: string, tree: BuiltTree, has: (oid: string) => Promise<boolean>): Promise<void> {
  if (await has(tree.oid)) return;
  writeLooseObject(gitDir, "tree", tree.content);
  for (const child of tree.children) await put(gitDir, child, has);
}

/**
 * Writes the tree of the index `entries` into the object store of `gitDir` (SHA-1, gitgood's own) as
 * `git write-tree` does, and returns its id; only the trees `has` says are missing are written. Null
 * when the entries make no tree: an unmerged entry, or a path with an empty, `.`, `..` or `.git`
 * component, or a name that is both a file and a folder (the caller leaves such an index to git).
 */
export async function writeTreeOfEntries(gitDir: string, entries: readonly IndexEntry[], has: (oid: string) => Promise<boolean>): Promise<string | null> {
  const root = foldersOf(entries);
  if (root === null) return null;
  const tree = build(root);
  await put(gitDir, tree, has);
  return tree.oid;
}
