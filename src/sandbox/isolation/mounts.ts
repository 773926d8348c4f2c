import { existsSync, realpathSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Isolation } from "./types.js";

/** The package directory of gitgood (src/sandbox/isolation or dist/sandbox/isolation, three levels up). */
const PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** System directories every program needs, read-only; a symbolic link among them (merged /usr) stays a link. Of /etc a jail sees only etc.ts's selection. */
export const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"];

export function isUnder(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

/**
 * What to show of an installed binary: the prefix above its `bin/` (libraries, helpers), unless that is
 * the root, the home, a directory directly in the home (`~/.local`) or above it: then the binary alone.
 */
function installationOf(binary: string): string {
  const real = realpathSync(binary);
  const binDir = path.dirname(real);
  const prefix = path.basename(binDir) === "bin" ? path.dirname(binDir) : binDir;
  const home = os.homedir();
  const tooWide = prefix === path.parse(prefix).root || isUnder(home, prefix) || path.dirname(prefix) === home;
  return tooWide ? real : prefix;
}

/** The first `name` on PATH, or null. */
function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    const candidate = path.join(dir, name);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      /* not here */
    }
  }
  return null;
}

/**
 * gitgood's own installation as [real path, path seen] pairs: `package.json`, `bin/`, `dist/` and the
 * dependencies. Installed as a dependency, gitgood reads its dependencies from the enclosing
 * `node_modules`, which is shown whole.
 */
function gitgoodInstallation(): Array<[string, string]> {
  const parts = PACKAGE_DIR.split(path.sep);
  const outer = parts.indexOf("node_modules");
  if (outer > 0) {
    const modules = parts.slice(0, outer + 1).join(path.sep);
    return [[realpathSync(modules), modules]];
  }
  return ["package.json", "bin", "dist", "node_modules"]
    .map((name) => path.join(PACKAGE_DIR, name))
    .filter((p) => existsSync(p))
    .map((p) => [realpathSync(p), p]);
}

/**
 * Read-only paths besides the system directories, as [real path, path seen]: gitgood and what the user
 * allowed, and, when programs share the host's system (`hostSystem`), node and git (a container has its image's).
 */
export function programPaths(iso: Isolation, hostSystem: boolean): Array<[string, string]> {
  const seen: Array<[string, string]> = [];
  const add = (real: string, at: string): void => {
    if (hostSystem && SYSTEM_DIRS.some((d) => isUnder(at, d) && isUnder(real, d))) return;
    if (!seen.some(([, a]) => isUnder(at, a))) seen.push([real, at]);
  };
  const git = onPath("git");
  for (const binary of hostSystem ? [process.execPath, ...(git ? [git] : [])] : []) {
    const prefix = installationOf(binary);
    add(prefix, prefix);
  }
  for (const [real, at] of gitgoodInstallation()) add(real, at);
  for (const p of iso.allowRead) {
    const at = path.resolve(p);
    add(realpathSync(at), at);
  }
  return seen;
}
