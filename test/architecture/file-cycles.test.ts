import path from "node:path";
import { describe, expect, it } from "vitest";
import { circles, importGraph, readSources } from "../helpers/import-graph.js";

/**
 * src/ has no import circle between files: each file can be understood (and loaded) after the files it
 * imports, without the ones that import it. Folders have none between them (the layers test); this test
 * keeps the files inside folders the same. Where two files need something of each other, the shapes
 * they share go to a leaf both import (a `types.ts`), or the one imported declares what it needs of the
 * other (as `mcp/bench-tools.ts` declares the `Bench` the workbench implements).
 */
const SRC = path.resolve(import.meta.dirname, "../../src");

describe("src/ import circles between files", () => {
  it("there is no import circle", () => {
    const found = circles(importGraph(readSources(SRC)));
    const listed = found.map((c) => `  ${c.join(" → ")}`).join("\n");
    expect(found, `${found.length} import circles, where there should be none:\n${listed}`).toEqual([]);
  });

  it("resolves imports across folders, so a circle through a parent folder counts", () => {
    const probe = new Map([
      ["runs/plan.ts", 'import { shardJobs } from "./shard.js";'],
      ["runs/shard.ts", 'import type { Job } from "../runs/plan.js";'],
      ["report/text.ts", 'import { plan } from "../runs/plan.js";'],
    ]);
    expect(circles(importGraph(probe))).toEqual([["runs/plan.ts", "runs/shard.ts"]]);
  });
});
