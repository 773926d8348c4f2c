import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The built CLI is imported: npm run build first.

const RUN = path.resolve("dist", "cli", "run.js");

/** A module resolve hook that prints each package a module of gitgood's own imports, one name a line. */
const HOOK = `
import { writeSync } from "node:fs";
export async function resolve(spec, ctx, next) {
  const r = await next(spec, ctx);
  const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(r.url);
  if (m && !(ctx.parentURL ?? "").includes("node_modules")) writeSync(2, "package " + m[1] + "\\n");
  return r;
}`;

/** A module resolve hook that prints each module of gitgood's own that gets loaded, by its path under dist/. */
const OWN_HOOK = `
import { writeSync } from "node:fs";
export async function resolve(spec, ctx, next) {
  const r = await next(spec, ctx);
  const m = /\\/dist\\/(.+)$/.exec(r.url);
  if (m && !r.url.includes("node_modules")) writeSync(2, "module " + m[1] + "\\n");
  return r;
}`;

/** The lines `hook` prints (after `prefix`) while a process imports `module`. */
function loadedBy(module: string, hook: string, prefix: string): Set<string> {
  const register = `data:text/javascript,${encodeURIComponent(`import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`)}`;
  const r = spawnSync(process.execPath, ["--import", register, "--input-type=module", "-e", `await import(${JSON.stringify(module)});`], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return new Set(r.stderr.split("\n").flatMap((l) => (l.startsWith(prefix) ? [l.slice(prefix.length)] : [])));
}

/** The npm packages importing `gitgood run`'s module loads (what every run pays for before its first git process). */
function packagesLoadedBy(module: string): Set<string> {
  return loadedBy(module, HOOK, "package ");
}

describe("what gitgood run loads at start", () => {
  it("leaves out the packages only some runs use: the queue's, MCP's, A2A's, Parquet's and the JUnit XML parser", () => {
    const loaded = packagesLoadedBy(RUN);
    expect(loaded.has("zod")).toBe(true);
    for (const lazy of ["bullmq", "ioredis", "@modelcontextprotocol/sdk", "@a2a-js/sdk", "hyparquet", "fast-xml-parser"]) expect(loaded, lazy).not.toContain(lazy);
  }, 60_000);

  it("leaves out gitgood's own modules a plain run does not use: the memory tools, a matrix's comparison and the report's formats, the SWE miner, the model proxy's server", () => {
    const loaded = loadedBy(RUN, OWN_HOOK, "module ");
    // The modules a SWE run does use are there: the hook sees what it should.
    for (const used of ["cli/run.js", "swe/evaluate.js", "scenarios/swe/scenario.js"]) expect(loaded, used).toContain(used);
    const lazy = ["memory/tools.js", "memory/steps.js", "cli/run-matrix.js", "cli/report.js", "report/formats.js", "report/html.js", "swe/mine/mine.js", "swe/mine/validate.js", "proxy/server.js"];
    for (const module of lazy) expect(loaded, module).not.toContain(module);
    expect([...loaded].filter((m) => m.startsWith("memory/")), "the memory folder").toEqual([]);
  }, 60_000);
});
