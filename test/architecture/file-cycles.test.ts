import path from "node:path";
import { describe, expect, it } from "vitest";
import { circles, importGraph, readSources } from "../helpers/import-graph.js";

/**
 * The import circles between files of src/ may only become fewer. Each circle is a group of files that
 * cannot be understood (or loaded) one without the others; folders have none between them (the layers
 * test), and this ratchet keeps the ones inside folders from growing. When you break one, lower the
 * figure here to what the test reports.
 */
const MOST_CIRCLES = 2;

const SRC = path.resolve(import.meta.dirname, "../../src");

describe("src/ import circles between files", () => {
  it(`are at most ${MOST_CIRCLES}, and never more`, () => {
    const found = circles(importGraph(readSources(SRC)));
    const listed = found.map((c) => `  ${c.join(" → ")}`).join("\n");
    expect(found.length, `${found.length} import circles (at most ${MOST_CIRCLES}):\n${listed}`).toBeLessThanOrEqual(MOST_CIRCLES);
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
