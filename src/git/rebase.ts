import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { continueWithoutGit } from "./own-continue.js";
import { pausedRebaseWithoutGit } from "./own-rebase.js";
import type { Repo } from "./repo.js";

/**
 * The sequence editor the rebase starts with: it puts a `break` before the first step, so the rebase
 * stops with everything prepared and nothing applied. Git runs it through the shell with the todo
 * file as its argument; no terminal editor ever opens.
 */
const PAUSE_EDITOR = `f() { { echo break; cat "$1"; } > "$1.gitgood" && mv "$1.gitgood" "$1"; }; f`;

function rebaseDir(repo: Repo): string {
  return path.join(repo.gitDir, "rebase-merge");
}

export function rebaseInProgress(repo: Repo): boolean {
  return existsSync(rebaseDir(repo));
}

/**
 * Starts `git rebase -i <base>` and leaves it paused before the first step. Returns the commits the todo
 * lists. Right after the first checkout of a tool-only sandbox, the paused rebase is written without git
 * where that gives what git gives (own-rebase.ts).
 */
export async function startPausedRebase(repo: Repo, base: string, env: Record<string, string>): Promise<string[]> {
  return (await pausedRebaseWithoutGit(repo, base, env)) ?? pausedRebaseByGit(repo, base, env);
}

/** `startPausedRebase` by git itself: `git rebase -i <base>` with the pausing sequence editor. */
export async function pausedRebaseByGit(repo: Repo, base: string, env: Record<string, string>): Promise<string[]> {
  const r = await repo.run(
    ["rebase", "-i", "--no-autosquash", "--empty=keep", "--no-update-refs", base],
    { env: { ...env, GIT_SEQUENCE_EDITOR: PAUSE_EDITOR }, okCodes: [0, 1] },
  );
  if (!rebaseInProgress(repo)) {
    throw new GitGoodError("REBASE_FAILED", `git rebase -i did not pause: ${firstLine(r.stderr)}`, { stderr: r.stderr });
  }
  const todo = readFileSync(path.join(rebaseDir(repo), "git-rebase-todo"), "utf8");
  return todo
    .split("\n")
    .map((l) => /^(?:p|pick) ([0-9a-f]+)/.exec(l)?.[1])
    .filter((x): x is string => x !== undefined);
}

interface ContinueOptions {
  env: Record<string, string>;
  /** Directory the todo's `exec` lines read message files from, as $GITGOOD_MESSAGES. */
  messagesDir: string;
  /** Replaces what is left of the todo before git carries on. */
  todo?: string;
}

/** Lets a paused or stopped rebase carry on; returns git's exit code and complaint for the record. */
export async function continueRebase(repo: Repo, opts: ContinueOptions): Promise<{ code: number; stderr: string }> {
  if (opts.todo !== undefined) writeFileSync(path.join(rebaseDir(repo), "git-rebase-todo"), opts.todo);
  const r = await repo.run(["rebase", "--continue"], {
    env: { ...opts.env, GITGOOD_MESSAGES: opts.messagesDir },
    okCodes: [0, 1],
  });
  return { code: r.code, stderr: r.stderr };
}

/**
 * Replaces what is left of a paused rebase's todo with `opts.todo` and lets it carry on, as
 * `continueRebase` does: where own-rebase.ts wrote the paused state and no step needs a merge, without
 * git (own-continue.ts), which always finishes (code 0).
 */
export async function runTodo(repo: Repo, opts: ContinueOptions & { todo: string }): Promise<{ code: number; stderr: string }> {
  if (await continueWithoutGit(repo, opts.todo, opts.env, opts.messagesDir)) return { code: 0, stderr: "" };
  return continueRebase(repo, opts);
}

export async function abortRebase(repo: Repo): Promise<void> {
  await repo.run(["rebase", "--abort"]);
}

/** The commit of the step the rebase stopped at (the last non-exec line git has done). */
export function stoppedCommit(repo: Repo): string | null {
  const file = path.join(rebaseDir(repo), "done");
  if (!existsSync(file)) return null;
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l !== "" && !l.startsWith("exec "));
  const last = lines[lines.length - 1] ?? "";
  return /^[a-z]+(?: -[Cc])? ([0-9a-f]{7,64})/.exec(last)?.[1] ?? null;
}

/** The first non-blank line of git's output (its complaint, usually). */
export function firstLine(text: string): string {
  return text.split("\n").find((l) => l.trim() !== "")?.trim() ?? "no message from git";
}
