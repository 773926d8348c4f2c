import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MEMORY_TOOLS, scratchMemory } from "../../src/memory/tools.js";
import { execFileSync } from "node:child_process";

const root = mkdtempSync(path.join(os.tmpdir(), "gitgood-memtools-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("memory tools in the registry", () => {
  it("derives function-calling schemas with the required reason", () => {
    const tools = MEMORY_TOOLS.functionTools();
    expect(tools.map((t) => t.function.name)).toEqual([
      "memory_context",
      "memory_log",
      "memory_commit",
      "memory_branch",
      "memory_merge",
      "memory_diff",
    ]);
    const commit = tools.find((t) => t.function.name === "memory_commit")!;
    expect((commit.function.parameters as { required: string[] }).required).toEqual(expect.arrayContaining(["contribution", "reason"]));
    expect(MEMORY_TOOLS.help()).toMatch(/memory_branch/);
  });

  it("works a scratch memory through the registry, with errors as results", async () => {
    const ws = await scratchMemory(path.join(root, "m"), "Resolve the conflict in io.py.");
    const log = await MEMORY_TOOLS.call(ws, "memory_log", { observation: "two sides", reason: "note" });
    expect(log.ok).toBe(true);
    const commit = await MEMORY_TOOLS.call(ws, "memory_commit", { contribution: "Kept the topic side.", reason: "save" });
    expect(commit.output).toMatch(/Committed entry #1 on branch main/);
    const ctx = await MEMORY_TOOLS.call(ws, "memory_context", { reason: "recall" });
    expect(ctx.output).toMatch(/Resolve the conflict in io\.py\./);
    const bad = await MEMORY_TOOLS.call(ws, "memory_merge", { branch: "main", outcome: "x", reason: "oops" });
    expect(bad.ok).toBe(false);
    expect(bad.output).toMatch(/into itself/);
    // Real git commits hold the memory.
    const subjects = execFileSync("git", ["log", "--format=%s"], { cwd: path.join(root, "m"), encoding: "utf8" });
    expect(subjects.trim().split("\n")).toHaveLength(2);
  });
});
