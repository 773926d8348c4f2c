import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/*
 * Import graphs of source files read from their text (static, dynamic and type-only imports alike, so a
 * circle through a lazy `import()` or a type counts too), and the circles in them: for the architecture
 * tests that keep the files free of circles, or their number from growing.
 */

/** The circles (strongly connected groups of two files or more) of a graph of file → files it imports, each sorted. */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (stack.includes(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) group.push(w);
    if (group.length > 1) out.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));
}

/** File (a path relative to the tree, `runs/plan.ts`) → the files of the tree it imports by a relative `.js` specifier. */
export function importGraph(sources: ReadonlyMap<string, string>): Map<string, string[]> {
  return new Map(
    [...sources].map(([file, text]) => {
      const targets = [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)\.js["']/g)]
        .map((m) => path.posix.normalize(path.posix.join(path.posix.dirname(file), `${m[1] ?? ""}.ts`)))
        .filter((f) => sources.has(f));
      return [file, [...new Set(targets)]];
    }),
  );
}

/** The `.ts` files under `dir` (recursively), by their path relative to it, with their text. */
export function readSources(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    if (entry.endsWith(".ts") && !entry.endsWith(".d.ts")) out.set(entry.split(path.sep).join("/"), readFileSync(path.join(dir, entry), "utf8"));
  }
  return out;
}
