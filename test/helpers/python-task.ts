import { Repo } from "../../src/git/repo.js";
import { removeIdleEvaluationSandboxes } from "../../src/swe/evaluate.js";
import type { SweOptions } from "../../src/swe/options.js";
import { useCacheDir } from "./envs.js";
import { useSandboxRoot } from "./scenarios.js";
import { pythonTask, type PythonTask } from "./swe.js";

/** The Python task's repository, opened, with a sandbox root and an environment cache of its own, and the SWE options that use the cache. */
export interface PythonTaskSetup {
  task: PythonTask;
  source: Repo;
  opts: SweOptions;
  root: ReturnType<typeof useSandboxRoot>;
  cache: ReturnType<typeof useCacheDir>;
  /** Removes the kept evaluation sandboxes, the repository, the sandbox root and the cache. */
  remove(): void;
}

/** Sets up the Python task (`extra` files committed at its base, as `pythonTask` takes them) for evaluating patches. */
export async function pythonTaskSetup(extra: Record<string, string> = {}): Promise<PythonTaskSetup> {
  const root = useSandboxRoot();
  const cache = useCacheDir();
  const task = pythonTask(extra);
  const source = await Repo.open(task.fixture.dir);
  return {
    task,
    source,
    root,
    cache,
    opts: { cacheDir: cache.dir, testTimeoutSeconds: 120, setupTimeoutSeconds: 300 },
    remove() {
      removeIdleEvaluationSandboxes();
      task.fixture.remove();
      root.cleanup();
      cache.cleanup();
    },
  };
}
