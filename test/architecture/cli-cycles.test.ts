import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { circles, importGraph } from "../helpers/import-graph.js";

/**
 * The CLI's files import no circle: a verb module never imports the verb table (verbs.ts) that loads it,
 * and what several verbs share sits in a module they import, not in another verb. Imports are read from
 * the text (static, dynamic and type-only alike), so a circle through a lazy `import()` counts too.
 */

const CLI = path.resolve(import.meta.dirname, "../../src/cli");

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
