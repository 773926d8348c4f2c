import { runGit } from "./process.js";

/** Makes a new repository at `dir` (which may exist and be empty) on `branch`, with automatic gc off. */
export async function initRepository(dir: string, opts: { branch: string; env?: Record<string, string> }): Promise<void> {
  await runGit(["init", "-q", "-b", opts.branch, dir], { cwd: dir, env: opts.env });
  await runGit(["config", "gc.auto", "0"], { cwd: dir, env: opts.env });
}

/** Feeds a `git fast-import` stream (which must end with `done`) into the repository at `dir`. */
export async function fastImport(dir: string, stream: string): Promise<void> {
  await runGit(["fast-import", "--quiet", "--done"], { cwd: dir, input: stream });
}

/** Checks out `branch` in the repository at `dir`, overwriting the work tree. */
export async function forceCheckout(dir: string, branch: string): Promise<void> {
  await runGit(["checkout", "-q", "-f", branch], { cwd: dir });
}
