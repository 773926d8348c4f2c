import { lstatSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * The bytes of every file of a git directory but its objects, by slash-separated path (a folder as its
 * path and a trailing slash, with no bytes): what a writer that left the directory in a known state
 * compares with later, to know that nobody (an agent's git, say) has changed it since. Null when the
 * directory holds anything but folders and regular files there (a link, a socket), or cannot be read.
 */
export function snapshotGitDir(gitDir: string): Map<string, Buffer> | null {
  const files = new Map<string, Buffer>();
  const walk = (rel: string): boolean => {
    for (const entry of readdirSync(path.join(gitDir, rel), { withFileTypes: true })) {
      const child = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (child === "objects") continue;
      if (entry.isDirectory()) {
        files.set(`${child}/`, Buffer.alloc(0));
        if (!walk(child)) return false;
      } else if (entry.isFile()) {
        files.set(child, readFileSync(path.join(gitDir, child)));
      } else {
        return false;
      }
    }
    return true;
  };
  try {
    return lstatSync(gitDir).isDirectory() && walk("") ? files : null;
  } catch {
    return null;
  }
}

/** Whether two snapshots hold the same paths with the same bytes. */
export function sameSnapshot(a: ReadonlyMap<string, Buffer>, b: ReadonlyMap<string, Buffer>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, bytes] of a) {
    const other = b.get(name);
    if (other === undefined || !other.equals(bytes)) return false;
  }
  return true;
}
