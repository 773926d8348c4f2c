import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runGit } from "./process.js";
import { Repo } from "./repo.js";

/**
 * Environment for git processes inside a sandbox: the user's global config (aliases, autocrlf,
 * templates, editors, signing) must not change what a scenario does, so only the sandbox's own
 * config applies (system config is already off in every git process gitgood starts).
 */
export const SANDBOX_GIT_ENV: Readonly<Record<string, string>> = {
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

/**
 * Makes `dir` a new repository that borrows every object of another repository through
 * `objects/info/alternates` (what `git clone --shared` does), without copying any ref: a scenario
 * creates only the refs it needs. The source repository is only read. An empty template keeps hooks
 * and sample files out. Returns the new repository's git directory.
 */
export async function initSharedRepo(dir: string, sourceObjectsDir: string, branch: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  await runGit(["init", "-q", "--template=", "-b", branch, dir], { cwd: dir, env: SANDBOX_GIT_ENV });
  const gitDir = path.join(dir, ".git");
  const infoDir = path.join(gitDir, "objects", "info");
  mkdirSync(infoDir, { recursive: true });
  writeFileSync(path.join(infoDir, "alternates"), `${path.resolve(sourceObjectsDir)}\n`);
  appendFileSync(path.join(gitDir, "config"), configText(SANDBOX_CONFIG));
  return gitDir;
}

/** Opens a repository made by initSharedRepo; every git process run through it gets SANDBOX_GIT_ENV. */
export function openSharedRepo(dir: string): Promise<Repo> {
  return Repo.open(dir, { env: SANDBOX_GIT_ENV });
}
