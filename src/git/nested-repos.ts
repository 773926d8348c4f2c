import { readdirSync } from "node:fs";

const SLASH = Buffer.from("/");
const DOT_GIT = Buffer.from(".git");

/**
 * The untracked folders below `workDir` that hold a repository of their own (an entry named `.git`,
 * whatever it is): what `git add -A` would record as another repository rather than as files. Paths are
 * relative to `workDir`, in bytes (names need not be UTF-8), `/` between names, in walk order.
 * `trackedNames` are the index's paths: a folder holding one of them is the repository's own, and git
 * walks into it whatever it holds, so the walk does too. The walk follows no symbolic link, does not enter
 * a nested repository (git does not either) and skips the top's own `.git`.
 */
export function nestedRepositories(workDir: string, trackedNames: readonly Buffer[]): Buffer[] {
  const trackedFolders = new Set<string>();
  for (const name of trackedNames) {
    for (let i = name.indexOf(0x2f); i !== -1; i = name.indexOf(0x2f, i + 1)) trackedFolders.add(name.subarray(0, i).toString("latin1"));
  }
  const found: Buffer[] = [];
  const list = (rel: Buffer | null) => readdirSync(rel === null ? workDir : Buffer.concat([Buffer.from(workDir), SLASH, rel]), { withFileTypes: true, encoding: "buffer" });
  const walk = (rel: Buffer | null): void => {
    for (const entry of list(rel)) {
      if (!entry.isDirectory() || (rel === null && entry.name.equals(DOT_GIT))) continue;
      const child = rel === null ? entry.name : Buffer.concat([rel, SLASH, entry.name]);
      if (!trackedFolders.has(child.toString("latin1")) && list(child).some((e) => e.name.equals(DOT_GIT))) found.push(child);
      else walk(child);
    }
  };
  walk(null);
  return found;
}
