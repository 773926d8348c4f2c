import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The CLI's files import no circle: a verb module never imports the verb table (verbs.ts) that loads it,
 * and what several verbs share sits in a module they import, not in another verb. Imports are read from
 * the text (static, dynamic and type-only alike), so a circle through a lazy `import()` counts too.
 */

const CLI = path.resolve(import.meta.dirname, "../../src/cli");

/** The circles (strongly connected groups of two files or more) of a graph of file → files it imports. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
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
  return out;
}

/** File → the files of the same folder it imports, from the sources' text. */
function importGraph(sources: ReadonlyMap<string, string>): Map<string, string[]> {
  return new Map(
    [...sources].map(([file, text]) => [
      file,
      [...text.matchAll(/(?:from|import)\s*\(?\s*["']\.\/([^"'/]+)\.js["']/g)].map((m) => `${m[1] ?? ""}.ts`).filter((f) => sources.has(f)),
    ]),
  );
}

describe("src/cli/", () => {
  it("has no import circle", () => {
    const sources = new Map(
      readdirSync(CLI)
        .filter((f) => f.endsWith(".ts"))
        .map((f) => [f, readFileSync(path.join(CLI, f), "utf8")] as const),
    );
    expect(circles(importGraph(sources))).toEqual([]);
  });

  it("finds a circle through a lazy import, and none in a chain", () => {
    const probe = new Map([
      ["verbs.ts", 'const load = () => import("./run.js");'],
      ["run.ts", 'import { withConfig } from "./config.js";'],
      ["config.ts", 'import { VERBS } from "./verbs.js";\nimport type { X } from "./io.js";'],
      ["io.ts", "export type X = 1;"],
    ]);
    expect(circles(importGraph(probe))).toEqual([["config.ts", "run.ts", "verbs.ts"]]);
    probe.set("config.ts", 'import type { X } from "./io.js";');
    expect(circles(importGraph(probe))).toEqual([]);
  });
});
