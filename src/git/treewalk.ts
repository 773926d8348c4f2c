import { GitGoodError } from "../errors.js";
import type { CatFile } from "./catfile.js";
import type { TreeChange } from "./trees.js";

/** One entry of a tree object. */
export interface TreeObjectEntry {
  /** Git's order key: the name's bytes (one character each), with a `/` after a tree's. */
  key: string;
  name: string;
  /** Six digits, as `diff-tree --raw` prints it. */
  mode: string;
  oid: string;
}

const ABSENT_MODE = "000000";
const TREE_MODE = "040000";

/** What a mode is a file of: a regular file (either mode), a link, a submodule commit or a tree. */
function kind(mode: string): string {
  return mode.startsWith("100") ? "file" : mode;
}

/** The entries of a raw tree object (`<mode> <name>\0<binary id>`), in the tree's (git's) order. */
export function parseTree(content: Buffer, idBytes: number): TreeObjectEntry[] {
  const entries: TreeObjectEntry[] = [];
  for (let at = 0; at < content.length; ) {
    const space = content.indexOf(0x20, at);
    const nul = content.indexOf(0, space);
    if (space === -1 || nul === -1 || nul + 1 + idBytes > content.length) throw new Error("malformed tree object");
    const mode = content.toString("latin1", at, space).padStart(6, "0");
    const bytes = content.toString("latin1", space + 1, nul);
    const oid = content.toString("hex", nul + 1, nul + 1 + idBytes);
    entries.push({ key: mode === TREE_MODE ? `${bytes}/` : bytes, name: content.toString("utf8", space + 1, nul), mode, oid });
    at = nul + 1 + idBytes;
  }
  return entries;
}

/**
 * What `git diff-tree -r --no-renames --raw FROM TO` prints, read through a long-lived `cat-file`
 * instead of a process per pair: every path whose blob or mode differs, recursively, in git's order
 * (a file that became a tree is deleted and the tree's files added, as git shows it). Only the
 * subtrees whose ids differ are read, so a re-merge compared with its recorded merge costs a few
 * reads. `from` and `to` name trees or commits; an object the reader cannot find fails with GIT_FAILED.
 */
export async function diffTreesVia(reader: CatFile, from: string, to: string): Promise<TreeChange[]> {
  const read = async (name: string): Promise<{ oid: string; content: Buffer }> => {
    const object = await reader.read(`${name}^{tree}`);
    if (!object || object.type !== "tree") {
      throw new GitGoodError("GIT_FAILED", `cannot read tree ${name} to compare two trees`, { object: name });
    }
    return object;
  };
  const tree = async (name: string): Promise<Buffer> => (await read(name)).content;
  const [a, b] = await Promise.all([read(from), read(to)]);
  const idBytes = a.oid.length / 2;
  const zero = "0".repeat(idBytes * 2);
  const absent = { mode: ABSENT_MODE, oid: zero };

  // Every subtree of a level is asked for at once (the reader answers in order), so a walk costs one
  // round trip to git per level of depth, not one per tree.
  const added = async (e: TreeObjectEntry, prefix: string, status: "A" | "D"): Promise<TreeChange[]> => {
    if (e.mode !== TREE_MODE) {
      const [old, now] = status === "A" ? [absent, e] : [e, absent];
      return [{ path: prefix + e.name, status, oldMode: old.mode, newMode: now.mode, oldOid: old.oid, newOid: now.oid }];
    }
    const inner = parseTree(await tree(e.oid), idBytes);
    return (await Promise.all(inner.map((x) => added(x, `${prefix}${e.name}/`, status)))).flat();
  };

  const walk = async (left: TreeObjectEntry[], right: TreeObjectEntry[], prefix: string): Promise<TreeChange[]> => {
    const parts: (TreeChange[] | Promise<TreeChange[]>)[] = [];
    let i = 0;
    let j = 0;
    while (i < left.length || j < right.length) {
      const l = left[i];
      const r = right[j];
      if (l && (!r || l.key < r.key)) {
        parts.push(added(l, prefix, "D"));
        i++;
      } else if (r && (!l || r.key < l.key)) {
        parts.push(added(r, prefix, "A"));
        j++;
      } else if (l && r) {
        i++;
        j++;
        if (l.oid === r.oid && l.mode === r.mode) continue;
        if (l.mode === TREE_MODE) {
          const inner = Promise.all([tree(l.oid), tree(r.oid)]);
          parts.push(inner.then(([x, y]) => walk(parseTree(x, idBytes), parseTree(y, idBytes), `${prefix}${l.name}/`)));
          continue;
        }
        const status = kind(l.mode) === kind(r.mode) ? "M" : "T";
        parts.push([{ path: prefix + l.name, status, oldMode: l.mode, newMode: r.mode, oldOid: l.oid, newOid: r.oid }]);
      }
    }
    return (await Promise.all(parts)).flat();
  };
  return walk(parseTree(a.content, idBytes), parseTree(b.content, idBytes), "");
}
