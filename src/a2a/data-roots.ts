import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";

/**
 * The directories an assessment request may name paths in (`a2a serve --data DIR`), as real paths.
 * Each must exist and be a directory; a wrong one stops the server before it serves.
 */
export function dataRoots(dirs: readonly string[], flag = "--data"): string[] {
  return dirs.map((dir) => {
    let real: string;
    try {
      real = realpathSync(path.resolve(dir));
    } catch {
      throw new GitGoodError("BAD_OPTION", `${flag} ${dir}: no such directory`);
    }
    if (!statSync(real).isDirectory()) throw new GitGoodError("BAD_OPTION", `${flag} ${dir}: not a directory`);
    return real;
  });
}

function isUnder(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

/**
 * The real path of a path a request names (`key` says which), which must lie under one of `roots`
 * once every symbolic link is resolved; anything else is refused as "invalid params" before it is read.
 */
export function underData(key: string, given: string, roots: readonly string[]): string {
  const invalid = (why: string): GitGoodError => new GitGoodError("BAD_ASSESSMENT", `invalid params: config.${key}: ${why}`);
  if (!path.isAbsolute(given)) throw invalid(`give an absolute path under a data directory, not '${given}'`);
  if (roots.length === 0) throw invalid("this green agent serves no data directory (start it with --data DIR)");
  let real: string;
  try {
    real = realpathSync(given);
  } catch {
    throw invalid(`${given} does not exist under a data directory`);
  }
  if (!roots.some((root) => isUnder(real, root))) throw invalid(`${given} is not under a data directory of this green agent (${roots.join(", ")})`);
  return real;
}
