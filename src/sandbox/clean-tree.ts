import { lstatSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";

/**
 * Removes from the work tree `work` everything the index does not track, in this process (what `git
 * clean -ffdx` removes, and the work tree's `.git` too): untracked and ignored files, links and directories,
 * nested repositories, and a directory standing where the index has a file. `tracked` are the index's
 * paths (`/`-separated). Links are removed, never followed. What is tracked is left as it is, changed
 * or not: a checkout with `-f` puts it back.
 */
export function removeUntracked(work: string, tracked: readonly string[]): void {
  const files = new Set(tracked);
  const dirs = new Set<string>();
  for (const file of tracked) {
    for (let i = file.indexOf("/"); i !== -1; i = file.indexOf("/", i + 1)) dirs.add(file.slice(0, i));
  }
  const walk = (rel: string): void => {
    const abs = rel === "" ? work : path.join(work, rel);
    for (const name of readdirSync(abs)) {
      const child = rel === "" ? name : `${rel}/${name}`;
      const at = path.join(abs, name);
      const st = lstatSync(at);
      if (st.isDirectory() && dirs.has(child) && !(rel === "" && name === ".git")) walk(child);
      else if (!files.has(child) || st.isDirectory()) rmSync(at, { recursive: true, force: true });
    }
  };
  walk("");
}
