import { privateTempDir, scratchRoot } from "../util/tempdirs.js";
import type { Repo } from "./repo.js";

/** Objects reachable from `tips` that a partial clone does not have, listed without fetching anything. */
export async function missingObjects(repo: Repo, tips: readonly string[]): Promise<Set<string>> {
  const missing = new Set<string>();
  for await (const line of repo.stream(["rev-list", "--objects", "--missing=print", "--stdin"], {
    input: tips.map((t) => `${t}\n`).join(""),
    separator: 10,
  })) {
    if (line.startsWith("?")) missing.add(line.slice(1).trim());
  }
  return missing;
}

/** Disk space of the object store in KiB: loose objects plus packs (`git count-objects -v`). */
export async function objectStoreKb(repo: Repo): Promise<number> {
  const out = await repo.text(["count-objects", "-v"]);
  let kb = 0;
  for (const line of out.split("\n")) {
    const m = /^(size|size-pack): (\d+)$/.exec(line);
    if (m) kb += Number(m[2]);
  }
  return kb;
}

/** Name start of gitgood's private object stores in the system's temporary folder. */
export const OBJECT_STORE_PREFIX = "gitgood-objects-";

interface ObjectStore {
  /** Environment for git: objects are written to the private store and read from it and the repository. */
  env: Record<string, string>;
  /** Removes the store now (it is removed at process exit anyway). */
  remove: () => void;
}

/** One entry of GIT_ALTERNATE_OBJECT_DIRECTORIES, C-quoted so that a path with `:` stays one entry. */
function quoteAlternate(dir: string): string {
  return `"${dir.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, "\\n").replace(/\t/g, "\\t")}"`;
}

/**
 * A private, temporary object directory that borrows a repository's objects as an alternate. Git
 * processes run with its environment write every object they make (merge results, and the
 * `tmp_objdir-*` folders of `--remerge-diff`) there, never into the repository, which stays read-only
 * even when gitgood is killed mid-way. Stores of killed processes are swept when the next one is made.
 * The store is made in memory when there is room (`scratchRoot`): git writes and deletes every
 * re-merge's objects there.
 */
export function privateObjectStore(repo: Repo): ObjectStore {
  const { dir, remove } = privateTempDir(OBJECT_STORE_PREFIX, scratchRoot());
  return { env: { GIT_OBJECT_DIRECTORY: dir, GIT_ALTERNATE_OBJECT_DIRECTORIES: quoteAlternate(repo.objectsDir) }, remove };
}
