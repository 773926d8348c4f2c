import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MEMORY_OPERATIONS } from "../../src/memory/operations.js";
import { MEMORY_TOOLS } from "../../src/memory/tools.js";
import { setEnv } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import {
  buildMcpFixtures,
  call,
  connectInMemory,
  ok,
  recordsIn,
  sandboxVars,
  singleSource,
  trajectoryOf,
  type McpFixtures,
} from "../helpers/mcp.js";
import { memoryFixture, openWorkspace } from "../helpers/memory.js";

// Serves in this process over the SDK's in-memory transport, as `gitgood mcp --memory PATH` would.
let fx: McpFixtures;
let mem: Fixture;
let restoreEnv: () => void;

beforeAll(async () => {
  fx = buildMcpFixtures();
  restoreEnv = setEnv(sandboxVars(fx.sandboxRoot));
  ({ fx: mem } = await memoryFixture());
});
afterAll(() => {
  restoreEnv();
  fx.cleanup();
  mem.remove();
});

describe("gitgood mcp --memory", () => {
  it("serves the memory operations as tools with their own schemas", async () => {
    const { client } = await connectInMemory({ mode: "memory" }, { memory: await openWorkspace(mem.dir) });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(MEMORY_OPERATIONS.map((op) => op.name));
      for (const t of tools) {
        const op = MEMORY_OPERATIONS.find((o) => o.name === t.name);
        expect(t.annotations, t.name).toMatchObject({ readOnlyHint: op?.readOnly, destructiveHint: false });
        expect(t.inputSchema).toEqual(MEMORY_TOOLS.functionTools().find((f) => f.function.name === t.name)?.function.parameters);
      }
      expect(await ok(client, "memory_log", { observation: "the app counts to three", action: "add four and five", reason: "note" })).toContain("Noted in the trace");
      const committed = await ok(client, "memory_commit", { contribution: "Planned the counting change.", reason: "save" });
      expect(committed).toMatch(/^Committed entry #\d+ on branch main/);
      expect(await ok(client, "memory_context", { branch: "main", reason: "recall" })).toContain("Planned the counting change.");
      const bad = await call(client, "memory_commit", { reason: "try" });
      expect(bad).toEqual({ isError: true, text: "error: bad arguments for memory_commit: contribution: required parameter is missing" });
      const noTask = await call(client, "get_task");
      expect(noTask.isError).toBe(true);
      expect(noTask.text).toContain("there is no tool 'get_task'");
    } finally {
      await client.close();
    }
    expect(mem.git("log", "-1", "--format=%s")).toContain("Planned the counting change.");
  });

  it("adds memory tools to a scenario and records their calls in its trajectory", async () => {
    const out = path.join(fx.root, "run-memory");
    const { client, closed } = await connectInMemory(await singleSource(fx, fx.mergeSample.id, out), { memory: await openWorkspace(mem.dir) });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("resolve_current_merge_conflict_with");
    expect(names).toContain("memory_context");
    await ok(client, "memory_log", { thought: "four conflicts to go", reason: "note" });
    await client.close();
    await closed;
    const key = `${fx.mergeSample.id}.MCR`;
    const events = trajectoryOf(out, recordsIn(out)[key]).events as { type: string; tool?: string }[];
    expect(events.filter((e) => e.type === "tool_call").map((e) => e.tool)).toEqual(["memory_log"]);
  });
});
