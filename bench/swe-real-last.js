// The last figure bench/swe-real.js measured (real projects' suites), kept in the user's gitgood cache
// (never a fixed name in the shared temporary folder, where another user could plant a link) so that
// bench/swe.js can print it beside its synthetic one, with its date and load.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { cacheRoot } from "../dist/util/cache-root.js";

export const REAL_LAST = path.join(cacheRoot(), "bench", "swe-real-last.json");

/** One line: the last real-suite figure (gitgood run --agent gold against the same pytest commands by hand), or how to get one. */
export function realSuiteLine() {
  const how = "node bench/swe-real.js REPO INSTANCES.jsonl --env-spec SPEC.yaml";
  if (!existsSync(REAL_LAST)) return `real suites: none measured on this machine yet (${how})`;
  let last;
  try {
    last = JSON.parse(readFileSync(REAL_LAST, "utf8"));
  } catch {
    return `real suites: ${REAL_LAST} cannot be read (${how} writes it again)`;
  }
  if (typeof last.ratio !== "number" || !Array.isArray(last.loads)) return `real suites: ${REAL_LAST} is from an older bench (${how} writes it again)`;
  const loads = last.loads.map((l) => l.toFixed(1)).join(" ");
  return (
    `real suites, last bench/swe-real.js (${last.date}, ${last.instances}, ${last.pairs} pairs, load ${loads}, ${last.cores} cores): ` +
    `gitgood run --agent gold ${(last.runMs / 1000).toFixed(2)} s vs the same pytest commands by hand ${(last.floorMs / 1000).toFixed(2)} s, x${last.ratio.toFixed(2)} (goal <= 1.5)`
  );
}
