import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../../errors.js";
import type { Sandbox } from "../../sandbox/sandbox.js";

/**
 * The sequence editor the rebase starts with: it puts a `break` before the first step, so the rebase
 * stops with everything prepared and nothing applied. Git runs it through the shell with the todo
 * file as its argument; no terminal editor ever opens.
 */
const PAUSE_EDITOR = `f() { { echo break; cat "$1"; } > "$1.gitgood" && mv "$1.gitgood" "$1"; }; f`;

export function rebaseDir(sandbox: Sandbox): string {
  return path.join(sandbox.repo.gitDir, "rebase-merge");
}

export function rebaseInProgress(sandbox: Sandbox): boolean {
  return existsSync(rebaseDir(sandbox));
}

/** Starts `git rebase -i <base>` and leaves it paused before the first step. Returns the commits git listed. */
export async function startPausedRebase(sandbox: Sandbox, base: string, env: Record<string, string>): Promise<string[]> {
  const r = await sandbox.git(
    ["rebase", "-i", "--no-autosquash", "--empty=keep", "--no-update-refs", base],
    { env: { ...env, GIT_SEQUENCE_EDITOR: PAUSE_EDITOR }, okCodes: [0, 1] },
  );
  if (!rebaseInProgress(sandbox)) {
    throw new GitGoodError("REBASE_FAILED", `git rebase -i did not pause: ${firstLine(r.stderr)}`, { stderr: r.stderr });
  }
  const todo = readFileSync(path.join(rebaseDir(sandbox), "git-rebase-todo"), "utf8");
  return todo
    .split("\n")
    .map((l) => /^(?:p|pick) ([0-9a-f]+)/.exec(l)?.[1])
    .filter((x): x is string => x !== undefined);
}

/** Replaces what is left of the todo and lets git carry on; returns git's output for the record. */
export async function continueRebase(
  sandbox: Sandbox,
  env: Record<string, string>,
  todo?: string,
): Promise<{ code: number; stderr: string }> {
  if (todo !== undefined) writeFileSync(path.join(rebaseDir(sandbox), "git-rebase-todo"), todo);
  const r = await sandbox.git(["rebase", "--continue"], {
    env: { ...env, GITGOOD_MESSAGES: sandbox.privatePath(".") },
    okCodes: [0, 1],
  });
  return { code: r.code, stderr: r.stderr };
}

export async function abortRebase(sandbox: Sandbox): Promise<void> {
  await sandbox.git(["rebase", "--abort"]);
}

/** The commit of the step the rebase stopped at (the last non-exec line git has done). */
export function stoppedCommit(sandbox: Sandbox): string | null {
  const file = path.join(rebaseDir(sandbox), "done");
  if (!existsSync(file)) return null;
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l !== "" && !l.startsWith("exec "));
  const last = lines[lines.length - 1] ?? "";
  return /^[a-z]+(?: -[Cc])? ([0-9a-f]{7,64})/.exec(last)?.[1] ?? null;
}

export function firstLine(text: string): string {
  return text.split("\n").find((l) => l.trim() !== "")?.trim() ?? "no message from git";
}
