import { existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gitVersion } from "./version.js";
import { Repo } from "./repo.js";

/**
 * A git directory of gitgood's own for a work tree that someone else (an agent) writes: gitgood's git
 * runs with `GIT_DIR` set to it and `GIT_WORK_TREE` to the work tree, so no git process of gitgood's
 * looks for, reads or writes the `.git` in the work tree (its config, hooks, commondir, alternates,
 * logs and objects are the agent's to plant). The work tree's files are only read as data (git records a
 * link as a link and never follows one; it never enters a directory named `.git`).
 *
 * The `.git` the agent sees is a copy gitgood keeps up to date (`gitDirCopyPlan`): its objects, refs and
 * state files as plain files, written without following links (src/sandbox/git-view.ts).
 */

/** Files that say where a repository stands: HEAD, the index, a merge or rebase in progress. */
const STATE_FILES = [
  "HEAD",
  "index",
  "shallow",
  "packed-refs",
  "ORIG_HEAD",
  "MERGE_HEAD",
  "MERGE_MSG",
  "MERGE_MODE",
  "AUTO_MERGE",
  "REBASE_HEAD",
  "CHERRY_PICK_HEAD",
  "info/sparse-checkout",
];
/** Directories of an operation in progress, copied whole while they exist. */
const STATE_DIRS = ["rebase-merge", "rebase-apply", "sequencer"];

const LOOSE_DIR = /^[0-9a-f]{2}$/;
const LOOSE_FILE = /^[0-9a-f]{38,62}$/;
const PACK_FILE = /^pack-[0-9a-f]{40,64}\.(?:pack|idx|rev)$/;

/** What a copy of a git directory needs, as slash-separated paths inside it. */
interface GitDirCopyPlan {
  /** Files written once and never changed (objects, packs, the config, the attributes file): copied when the copy lacks them. */
  once: string[];
  /** Files that change as the repository moves (refs, HEAD, the index, operation state): copied every time. */
  always: string[];
  /** State files and directories the git directory does not have now: removed from the copy. */
  absent: string[];
}

function isFile(p: string): boolean {
  try {
    return lstatSync(p).isFile();
  } catch {
    return false;
  }
}

function filesBelow(root: string, rel: string, into: string[]): void {
  let names: string[];
  try {
    names = readdirSync(path.join(root, rel));
  } catch {
    return;
  }
  for (const name of names.sort()) {
    const child = `${rel}/${name}`;
    const st = lstatSync(path.join(root, child));
    if (st.isDirectory()) filesBelow(root, child, into);
    else if (st.isFile()) into.push(child);
  }
}

/** What copying gitgood's git directory `gitDir` (its own, never one an agent can write) to another place takes. */
export function gitDirCopyPlan(gitDir: string): GitDirCopyPlan {
  const once = ["config"];
  if (isFile(path.join(gitDir, "info", "attributes"))) once.push("info/attributes");
  const always: string[] = [];
  const absent: string[] = [];
  const objects = path.join(gitDir, "objects");
  for (const name of readdirSync(objects).sort()) {
    if (LOOSE_DIR.test(name)) {
      for (const file of readdirSync(path.join(objects, name)).sort()) if (LOOSE_FILE.test(file)) once.push(`objects/${name}/${file}`);
    }
  }
  for (const file of readdirSync(path.join(objects, "pack")).sort()) if (PACK_FILE.test(file)) once.push(`objects/pack/${file}`);
  for (const file of STATE_FILES) (isFile(path.join(gitDir, file)) ? always : absent).push(file);
  filesBelow(gitDir, "refs", always);
  for (const dir of STATE_DIRS) {
    if (existsSync(path.join(gitDir, dir))) filesBelow(gitDir, dir, always);
    else absent.push(dir);
  }
  return { once, always, absent };
}

/**
 * Writes a new, empty git directory at `gitDir` (no git process: the files git itself would write, with
 * no hooks, no templates, no alternates): HEAD on `branch`, empty object store and refs, and `config`
 * as the repository's configuration (a work tree's: `core.bare` false).
 */
export function writeOwnGitDir(gitDir: string, branch: string, config: string): void {
  for (const dir of ["objects/pack", "objects/info", "refs/heads", "refs/tags"]) mkdirSync(path.join(gitDir, dir), { recursive: true });
  writeFileSync(path.join(gitDir, "HEAD"), `ref: refs/heads/${branch}\n`);
  const core = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n";
  writeFileSync(path.join(gitDir, "config"), core + config);
}

/** The environment that runs git on `workDir` through the git directory `gitDir`, and nothing else. */
function ownGitEnv(workDir: string, gitDir: string): Record<string, string> {
  return { GIT_DIR: gitDir, GIT_WORK_TREE: workDir };
}

/** Opens the repository of `workDir` through gitgood's own git directory `gitDir` (no probe of the work tree's `.git`). */
export async function openOwnRepo(workDir: string, gitDir: string, env: Readonly<Record<string, string>>): Promise<Repo> {
  return Repo.own(workDir, gitDir, { ...env, ...ownGitEnv(workDir, gitDir) }, await gitVersion());
}
