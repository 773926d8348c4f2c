import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** Whether a plug-in is named by a path (`./x`, `../x`, `/x`) rather than as an installed package. */
function isPathSpecifier(module: string): boolean {
  return module.startsWith("./") || module.startsWith("../") || module === "." || module === ".." || path.isAbsolute(module);
}

/** The ES module entry of a package directory: `exports` (its "." import or default), else `main`, else index.js. */
function packageEntry(dir: string): string {
  const manifest = path.join(dir, "package.json");
  if (!existsSync(manifest)) return path.join(dir, "index.js");
  const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { exports?: unknown; main?: unknown };
  const target = exportTarget(pkg.exports);
  if (target !== null) return path.join(dir, target);
  return path.join(dir, typeof pkg.main === "string" ? pkg.main : "index.js");
}

/** The file an `exports` field maps "." to for `import`. */
function exportTarget(exports: unknown): string | null {
  if (typeof exports === "string") return exports;
  if (typeof exports !== "object" || exports === null || Array.isArray(exports)) return null;
  const fields = exports as Record<string, unknown>;
  const dot = "." in fields ? fields["."] : fields;
  if (typeof dot === "string") return dot;
  if (typeof dot !== "object" || dot === null) return null;
  const conditions = dot as Record<string, unknown>;
  for (const key of ["import", "node", "default"]) {
    const value = conditions[key];
    if (typeof value === "string") return value;
    const nested = typeof value === "object" && value !== null ? exportTarget({ ".": value }) : null;
    if (nested !== null) return nested;
  }
  return null;
}

/** The directory of an installed package, found in the node_modules of `base` or a directory above it. */
function packageDir(name: string, base: string): string | null {
  for (let dir = path.resolve(base); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (existsSync(path.join(candidate, "package.json"))) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * The file a plug-in is loaded from: a path is taken from `base` (a file as it is, a directory by its
 * package.json or index.js); a package name is looked up in the node_modules of `base` and above. Null
 * when there is no such file.
 */
export function resolvePlugin(module: string, base: string): string | null {
  if (isPathSpecifier(module)) {
    const target = path.resolve(base, module);
    if (!existsSync(target)) return null;
    const file = statSync(target).isDirectory() ? packageEntry(target) : target;
    return existsSync(file) ? file : null;
  }
  const dir = packageDir(module, base);
  if (dir === null) return null;
  const file = packageEntry(dir);
  return existsSync(file) ? file : null;
}
