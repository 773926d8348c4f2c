import { mkdirSync } from "node:fs";
import { initRepository } from "../git/init.js";
import { z } from "zod";
import { ToolRegistry } from "../tools/registry.js";
import { REASON_DESCRIPTION, type Tool } from "../tools/tool.js";
import { initMemory } from "./init.js";
import { MEMORY_OPERATIONS, type MemoryOperation } from "./operations.js";
import { MemoryWorkspace } from "./memory-workspace.js";

/**
 * A memory operation as a registry tool: its own schema and handler, plus the `reason` every tool
 * takes. The operations cut long answers themselves (with their own `offset`), so the registry does
 * not page them again.
 */
function memoryTool(op: MemoryOperation): Tool<MemoryWorkspace> {
  return {
    name: op.name,
    description: op.description,
    input: op.input.extend({ reason: z.string().min(1).describe(REASON_DESCRIPTION) }),
    readOnly: op.readOnly,
    run: (workspace, args) => {
      const { reason: _reason, ...rest } = args;
      return op.run(workspace, rest);
    },
  };
}

/** The memory operations as one registry: the tools of `gitgood run --memory` and `gitgood mcp --memory`. */
export const MEMORY_TOOLS = new ToolRegistry<MemoryWorkspace>(
  (MEMORY_OPERATIONS as readonly MemoryOperation[]).map(memoryTool),
  Number.MAX_SAFE_INTEGER,
);

/** Identity for the commits of a scratch memory workspace. */
const SCRATCH_IDENTITY = {
  GIT_AUTHOR_NAME: "gitgood-memory",
  GIT_AUTHOR_EMAIL: "memory@gitgood.local",
  GIT_COMMITTER_NAME: "gitgood-memory",
  GIT_COMMITTER_EMAIL: "memory@gitgood.local",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

/**
 * Makes a fresh git repository at `dir` holding only an agent's memory (notes, not code), with its
 * goal set: the scratch memory an agent gets for one benchmark scenario.
 */
export async function scratchMemory(dir: string, goal: string): Promise<MemoryWorkspace> {
  mkdirSync(dir, { recursive: true });
  await initRepository(dir, { branch: "main", env: SCRATCH_IDENTITY });
  const ws = await MemoryWorkspace.open(dir, { env: SCRATCH_IDENTITY });
  await initMemory(ws, { goal });
  return ws;
}
