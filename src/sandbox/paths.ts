import { existsSync, lstatSync, realpathSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";

/**
 * Checks a path an agent gave (relative to the project root) and returns it in git's form
 * (forward slashes, no `./`). Refused with PATH_OUTSIDE: empty or absolute paths, `..` steps, NUL,
 * anything inside `.git`, and paths whose existing part resolves (through symlinks) outside the root.
 */
export function checkRelativePath(root: string, given: string): string {
  const fail = (why: string): never => {
    throw new GitGoodError("PATH_OUTSIDE", `path '${given}' is not allowed: ${why}`, { path: given });
  };
  if (given.trim() === "") fail("it is empty");
  if (given.includes("\0")) fail("it contains a NUL byte");
  if (path.isAbsolute(given) || path.win32.isAbsolute(given) || /^[A-Za-z]:/.test(given)) {
    fail("give a path relative to the project root, not an absolute path");
  }
  const parts = given.split(/[\\/]+/).filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) fail("'..' steps out of the project root");
  if (parts.length === 0) fail("it names the project root itself, not a file");
  if (parts[0]?.toLowerCase() === ".git") fail("the .git directory is not part of the project");
  const relative = parts.join("/");

  // Follow symlinks in the part of the path that exists; it must stay inside the root.
  const realRoot = realpathSync(root);
  let probe = path.join(root, ...parts);
  while (!existsSync(probe) && !isDanglingLink(probe) && probe !== root) probe = path.dirname(probe);
  if (isDanglingLink(probe)) fail("it is a symbolic link that points nowhere");
  const real = realpathSync(probe);
  if (real !== realRoot && !real.startsWith(realRoot + path.sep)) fail("it leads outside the project root");
  return relative;
}

function isDanglingLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink() && !existsSync(p);
  } catch {
    return false;
  }
}
