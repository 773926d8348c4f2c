import { afterAll, beforeAll } from "vitest";
import type { ResultRecord } from "../../src/runs/record.js";
import { builtLater } from "./built-later.js";
import { gitgood, setEnv } from "./cli.js";
import { useCacheDir } from "./envs.js";
import { recordsIn, sandboxVars, trajectoryOf } from "./mcp.js";
import { useSandboxRoot } from "./scenarios.js";

// `gitgood run`'s records of a sample, which the serve tests compare the episodes they play over a protocol with.

/** A sandbox root and an environment cache of the test file's own. */
export interface RunDirs {
  /** The sandbox root (GITGOOD_SANDBOX_ROOT while the file's tests run). */
  root: string;
  /** The environment cache (GITGOOD_CACHE_DIR while the file's tests run). */
  cacheDir: string;
}

/** One tool call of a recorded attempt. */
export interface RecordedCall {
  tool: string;
  args: Record<string, unknown>;
}

/**
 * Makes the file's sandbox root and environment cache before its tests (`beforeAll`), names them in the
 * environment while they run, and removes them and restores the environment after (`afterAll`). The fields are
 * there once the file's tests run; a file's own `beforeAll` (registered after this call) may use them.
 */
export function useRunDirs(): RunDirs {
  let made: { root: ReturnType<typeof useSandboxRoot>; cache: ReturnType<typeof useCacheDir>; restoreEnv: () => void } | undefined;
  beforeAll(() => {
    const root = useSandboxRoot();
    const cache = useCacheDir();
    made = { root, cache, restoreEnv: setEnv({ GITGOOD_CACHE_DIR: cache.dir }) };
  });
  afterAll(() => {
    made?.restoreEnv();
    made?.root.cleanup();
    made?.cache.cleanup();
  });
  return builtLater(() => made && { root: made.root.root, cacheDir: made.cache.dir }, "the sandbox root and cache");
}

/**
 * `gitgood run SAMPLES --repo REPO --agent AGENT --out OUT EXTRA` with `dirs`' sandbox root and cache (and no
 * sandbox of the caller's): its one record. A run that fails, or leaves no record, is an error.
 */
export async function runRecord(dirs: RunDirs, samples: string, repo: string, agent: string, out: string, extra: string[] = []): Promise<ResultRecord> {
  const r = await gitgood(["run", samples, "--repo", repo, "--agent", agent, "--out", out, ...extra], { env: { GITGOOD_CACHE_DIR: dirs.cacheDir, ...sandboxVars(dirs.root) } });
  if (r.code !== 0) throw new Error(`gitgood run --agent ${agent} failed: ${r.stderr}`);
  const [record] = Object.values(recordsIn(out));
  if (!record) throw new Error(`gitgood run --agent ${agent} left no record`);
  return record;
}

/** The tool calls of the attempt `record` (in run directory `out`) holds, in order. */
export function recordedCalls(out: string, record: ResultRecord): RecordedCall[] {
  const events = trajectoryOf(out, record).events as { type: string; tool?: string; args?: unknown }[];
  return events.filter((e) => e.type === "tool_call").map((e) => ({ tool: e.tool as string, args: (e.args ?? {}) as Record<string, unknown> }));
}
