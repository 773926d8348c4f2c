import { privateTempDir } from "../util/tempdirs.js";
import type { Repo } from "./repo.js";

/** Name start of gitgood's private object stores in the system's temporary folder. */
export const OBJECT_STORE_PREFIX = "gitgood-objects-";

export interface ObjectStore {
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
 */
export function privateObjectStore(repo: Repo): ObjectStore {
  const { dir, remove } = privateTempDir(OBJECT_STORE_PREFIX);
  return { env: { GIT_OBJECT_DIRECTORY: dir, GIT_ALTERNATE_OBJECT_DIRECTORIES: quoteAlternate(repo.objectsDir) }, remove };
}
