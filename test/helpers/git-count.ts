import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Counts the git processes started while `work` runs, set-up included: every git process writes one
 * `trace: built-in:` (or `trace: exec:` for a dashed helper) line to the file GIT_TRACE names, children
 * git starts itself among them. `process.env` is what every gitgood git process inherits (see gitEnv).
 */
export async function countGitProcesses<T>(work: () => Promise<T>): Promise<{ result: T; processes: number; commands: string[] }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-trace-"));
  const file = path.join(dir, "trace");
  const previous = process.env.GIT_TRACE;
  process.env.GIT_TRACE = file;
  try {
    const result = await work();
    const lines = existsSync(file) ? readFileSync(file, "utf8").split("\n") : [];
    const commands = lines.flatMap((l) => {
      const m = /trace: (?:built-in|exec): git (.*)$/.exec(l);
      return m ? [m[1] as string] : [];
    });
    return { result, processes: commands.length, commands };
  } finally {
    if (previous === undefined) delete process.env.GIT_TRACE;
    else process.env.GIT_TRACE = previous;
    rmSync(dir, { recursive: true, force: true });
  }
}
