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

/** The npm packages importing `gitgood run`'s module loads (what every run pays for before its first git process). */
function packagesLoadedBy(module: string): Set<string> {
  const register = `data:text/javascript,${encodeURIComponent(`import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOK)}`)});`)}`;
  const r = spawnSync(process.execPath, ["--import", register, "--input-type=module", "-e", `await import(${JSON.stringify(module)});`], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return new Set(r.stderr.split("\n").flatMap((l) => (l.startsWith("package ") ? [l.slice("package ".length)] : [])));
}

describe("what gitgood run loads at start", () => {
  it("leaves out the packages only some runs use: the queue's, MCP's, A2A's, Parquet's and the JUnit XML parser", () => {
    const loaded = packagesLoadedBy(RUN);
    expect(loaded.has("zod")).toBe(true);
    for (const lazy of ["bullmq", "ioredis", "@modelcontextprotocol/sdk", "@a2a-js/sdk", "hyparquet", "fast-xml-parser"]) expect(loaded, lazy).not.toContain(lazy);
  }, 60_000);
});
