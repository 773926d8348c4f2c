import { mkdirSync } from "node:fs";
import { runGit } from "../git/process.js";
import { defineTool } from "../tools/tool.js";
import { ToolRegistry } from "../tools/registry.js";
import { initMemory } from "./init.js";
import { MEMORY_OPERATIONS } from "./operations.js";
import { MemoryWorkspace } from "./workspace.js";

/** The memory operations as registry tools (each gets the required `reason`, like every tool). */
export const MEMORY_TOOLS = new ToolRegistry<MemoryWorkspace>(
  MEMORY_OPERATIONS.map((op) => defineTool<MemoryWorkspace, typeof op.params>(op as never)),
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
  await runGit(["init", "-q", "-b", "main", dir], { cwd: dir, env: SCRATCH_IDENTITY });
  const ws = await MemoryWorkspace.open(dir, { env: SCRATCH_IDENTITY });
  await initMemory(ws, { goal });
  return ws;
}
