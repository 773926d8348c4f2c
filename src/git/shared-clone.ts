import { appendFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runGit } from "./process.js";
import { openOwnRepo, writeOwnGitDir } from "./own-git-dir.js";
import { Repo } from "./repo.js";
import { checkOutOnly } from "./sparse.js";
import { keepStoredBytes } from "./stored-bytes.js";

/**
 * Environment for git processes inside a sandbox: the user's global config (aliases, autocrlf,
 * templates, editors, signing) must not change what a scenario does, so only the sandbox's own
 * config applies (system config is already off in every git process gitgood starts).
 */
const SANDBOX_GIT_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_GLOBAL: os.devNull,
  GIT_EDITOR: ":",
  GIT_MERGE_AUTOEDIT: "no",
};

/** Settings written into every sandbox repository, so scenarios behave the same on every machine. */
const SANDBOX_CONFIG: ReadonlyArray<readonly [string, string, string]> = [
  ["core", "autocrlf", "false"],
  ["core", "safecrlf", "false"],
  ["core", "quotePath", "false"],
  ["gc", "auto", "0"],
  ["commit", "gpgsign", "false"],
  ["merge", "conflictStyle", "merge"],
  ["rerere", "enabled", "false"],
  ["advice", "detachedHead", "false"],
  ["user", "name", "gitgood"],
  ["user", "email", "gitgood@localhost"],
  // No hook ever runs: a program in the sandbox may write .git/hooks, and gitgood commits there too.
  ["core", "hooksPath", os.devNull],
];

function configText(settings: ReadonlyArray<readonly [string, string, string]>): string {
  const sections = new Map<string, string[]>();
  for (const [section, key, value] of settings) {
    const lines = sections.get(section) ?? [];
    lines.push(`\t${key} = ${value}\n`);
    sections.set(section, lines);
  }
  return [...sections].map(([section, lines]) => `[${section}]\n${lines.join("")}`).join("");
}

/** What a sandbox's work tree holds: every file, or only those a scenario writes (the rest stay in the index). */
export type WorkTreeMode = "full" | "tools";

/**
 * Makes `dir` a new, empty repository for a sandbox: no objects (the caller installs an answer-free
 * store), no refs, no remote, no alternates. An empty template keeps hooks and sample files out. With
 * a `tools` work tree, git's sparse checkout is on with no paths: checkouts fill the index but write no
 * file, conflicts still land in the work tree, and `checkOutOnly` names the files to write. Returns
 * the new repository's git directory.
 */
export async function initSandboxRepo(dir: string, branch: string, workTree: WorkTreeMode): Promise<string> {
  mkdirSync(dir, { recursive: true });
  await runGit(["init", "-q", "--template=", "-b", branch, dir], { cwd: dir, env: SANDBOX_GIT_ENV });
  const gitDir = path.join(dir, ".git");
  const sparse: ReadonlyArray<readonly [string, string, string]> = workTree === "tools" ? [["core", "sparseCheckout", "true"]] : [];
  appendFileSync(path.join(gitDir, "config"), configText([...SANDBOX_CONFIG, ...sparse]));
  if (workTree === "tools") checkOutOnly(gitDir, []);
  return gitDir;
}

/** Opens a repository made by initSandboxRepo; every git process run through it gets SANDBOX_GIT_ENV. */
export function openSandboxRepo(dir: string): Promise<Repo> {
  return Repo.open(dir, { env: SANDBOX_GIT_ENV });
}

/**
 * Makes `gitDir` gitgood's own git directory for the sandbox work tree `workDir` (made when missing):
 * no objects yet (the caller installs an answer-free store), HEAD on `branch`, the sandbox settings, and
 * with a `tools` work tree the same sparse checkout as `initSandboxRepo`. No git process runs, and
 * nothing is written into the work tree: the `.git` the agent sees there is a copy made later. With
 * `storedBytes`, git converts no file of the work tree (src/git/stored-bytes.ts).
 */
export function initOwnSandboxRepo(workDir: string, gitDir: string, branch: string, workTree: WorkTreeMode, storedBytes = false): void {
  mkdirSync(workDir, { recursive: true });
  const sparse: ReadonlyArray<readonly [string, string, string]> = workTree === "tools" ? [["core", "sparseCheckout", "true"]] : [];
  writeOwnGitDir(gitDir, branch, configText([...SANDBOX_CONFIG, ...sparse]));
  if (storedBytes) keepStoredBytes(gitDir);
  if (workTree === "tools") checkOutOnly(gitDir, []);
}

/** Opens a sandbox's work tree through gitgood's own git directory made by initOwnSandboxRepo; every git process gets SANDBOX_GIT_ENV too. */
export function openOwnSandboxRepo(workDir: string, gitDir: string): Promise<Repo> {
  return openOwnRepo(workDir, gitDir, SANDBOX_GIT_ENV);
}
