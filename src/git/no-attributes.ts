import os from "node:os";
import path from "node:path";
import { privateTempDir } from "../util/tempdirs.js";

/**
 * How a git process runs so that no attributes file of a project decides what it prints: the patches
 * gitgood reads of commits are then the same whoever wrote what in a work tree or an index.
 *
 * Git reads attributes for a patch (`-diff` and `binary` turn text into "Binary files differ", a `diff=`
 * driver chooses the hunk headers) from the `.gitattributes` files of the work tree, of the index where the
 * work tree lacks them, from the user's own attributes file and the system's, and from the git directory's
 * `info/attributes`. A patch read in a sandbox would then show what an agent's uncommitted `.gitattributes`
 * asks for (a history whose patches a judge cannot read), and one read in a user's checkout whatever that
 * checkout holds. Here git runs in an empty directory of gitgood's own that is also its work tree, with an
 * index file that does not exist and without the user's and the system's attributes files, so only
 * `info/attributes` is left: a sandbox's is gitgood's own (src/git/stored-bytes.ts, which leaves `diff`
 * unspecified), a user's repository's is the user's.
 */
export interface NoAttributes {
  cwd: string;
  env: Record<string, string>;
}

let place: string | null = null;

/** The empty directory of this process that such git processes run in (made when first needed, removed at exit). */
function emptyPlace(): string {
  place ??= privateTempDir("gitgood-no-attributes-").dir;
  return place;
}

/** How to run git on the git directory `gitDir` (with `env`, a handle's own) reading no project's attributes. */
export function noAttributes(gitDir: string, env: Readonly<Record<string, string>>): NoAttributes {
  const cwd = emptyPlace();
  // One more setting given in the environment, after any the handle's environment gives already.
  const n = Number(env.GIT_CONFIG_COUNT ?? "0");
  return {
    cwd,
    env: {
      ...env,
      GIT_DIR: gitDir,
      GIT_WORK_TREE: cwd,
      GIT_INDEX_FILE: path.join(cwd, "no-index"),
      GIT_ATTR_NOSYSTEM: "1",
      GIT_CONFIG_COUNT: String(n + 1),
      [`GIT_CONFIG_KEY_${n}`]: "core.attributesFile",
      [`GIT_CONFIG_VALUE_${n}`]: os.devNull,
    },
  };
}
