import { importTargets, pythonImports } from "../python/imports.js";
import { dependencyOrder } from "../python/order.js";
import { parsesCleanly } from "../python/parser.js";
import { stubbedFunctions } from "../python/stubs.js";

/** A source file that still has stubs, with their dotted names. */
export interface StubbedFile {
  file: string;
  stubs: string[];
}

/** Where top-level packages may live for imports of files under `srcDir`: the root, the source directory and its parent. */
function packageRoots(srcDir: string): string[] {
  const parent = srcDir.includes("/") ? srcDir.slice(0, srcDir.lastIndexOf("/")) : "";
  return [...new Set(["", parent, srcDir])];
}

/**
 * The Python files under `srcDir` (among `files`, read with `read`) that still have stubs, in commit0's
 * order (`dependencyOrder` over the files sorted by path): each after the files it imports, an import
 * cycle broken as commit0 breaks it (the cycle's first file loses its own imports). Files that cannot
 * be read or do not parse (the skeleton keeps such a file whole: nothing in it is a stub) are left out.
 */
export async function stubbedFilesInOrder(files: readonly string[], srcDir: string, read: (file: string) => string | null): Promise<StubbedFile[]> {
  const prefix = srcDir === "" ? "" : `${srcDir}/`;
  const python = files.filter((f) => f.startsWith(prefix) && f.endsWith(".py")).sort();
  const present = new Set(files);
  const roots = packageRoots(srcDir);
  const stubs = new Map<string, string[]>();
  const deps = new Map<string, string[]>();
  for (const file of python) {
    const text = read(file);
    if (text === null || !(await parsesCleanly(text))) continue;
    const names = await stubbedFunctions(text);
    if (names.length === 0) continue;
    stubs.set(file, names);
    deps.set(file, (await pythonImports(text)).flatMap((imp) => importTargets(imp, file, roots, (p) => present.has(p))));
  }
  return dependencyOrder([...stubs.keys()], (f) => deps.get(f) ?? []).map((file) => ({ file, stubs: stubs.get(file) ?? [] }));
}
