import path from "node:path";
import { execIn, type ExecResult } from "../sandbox/exec.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { withReadPaths } from "./prepare.js";
import type { Environment } from "./types.js";

/**
 * Runs one program in the sandbox's work tree with an environment's programs and paths, isolated as a
 * test run is (the environment readable, only the work tree writable), time- and output-limited, with
 * no bytecode written. For checks around test runs (a compile check, say).
 */
export function execInEnvironment(
  sandbox: Sandbox,
  env: Environment,
  argv: readonly string[],
  opts: { timeoutSeconds: number; signal?: AbortSignal; maxOutput?: number },
): Promise<ExecResult> {
  const work = sandbox.workDir;
  const execEnv: Record<string, string> = { ...env.vars, GITGOOD_ENV: env.envDir, PYTHONDONTWRITEBYTECODE: "1" };
  if (env.spec.pythonPath.length > 0) execEnv.PYTHONPATH = env.spec.pythonPath.map((p) => path.resolve(work, p)).join(path.delimiter);
  return execIn(
    work,
    argv,
    { timeout: opts.timeoutSeconds, env: execEnv, signal: opts.signal, maxOutput: opts.maxOutput ?? 256 * 1024, keep: "tail" },
    { work, isolation: withReadPaths(sandbox.isolation, env.readPaths) },
  );
}
