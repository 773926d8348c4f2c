import { constants, copyFileSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { gitDirCopyPlan } from "../git/own-git-dir.js";
import { ForeignDir } from "./foreign-dir.js";

/** Splits a slash-separated path into its directory (empty at the top) and its name. */
function split(rel: string): [string, string] {
  const at = rel.lastIndexOf("/");
  return at === -1 ? ["", rel] : [rel.slice(0, at), rel.slice(at + 1)];
}

/** Groups paths by their directory, so each directory of the copy is opened once. */
function byDirectory(rels: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const rel of rels) {
    const [dir, name] = split(rel);
    const names = out.get(dir) ?? [];
    names.push(name);
    out.set(dir, names);
  }
  return out;
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Brings the `.git` of the work tree `workDir` (the repository the agent sees and may change) up to
 * date with gitgood's own git directory `gitDir`: objects and packs it lacks, the refs, HEAD, the index
 * and a merge or rebase in progress, as gitgood's git left them; state files gitgood's repository no
 * longer has are removed. Only plain files are written, each under a fresh name and renamed into place;
 * no link is ever followed and nothing of the copy is read. A place the agent has made into something
 * else (a link where a directory was, a directory where a file was) is left as it is, and named in the
 * returned list of problems (empty when the copy is complete). What the agent wrote there itself (its
 * own commits, config) is neither read nor kept in step: gitgood's repository is the record.
 */
export function publishGitView(gitDir: string, workDir: string): string[] {
  const plan = gitDirCopyPlan(gitDir);
  const problems: string[] = [];
  const work = ForeignDir.open(path.dirname(workDir), path.basename(workDir));
  if (!work) return [`${workDir} is gone`];
  let view: ForeignDir | null = null;
  try {
    view = work.dir(".git", true);
    if (!view) return [`${path.join(workDir, ".git")} could not be made`];
    const target = view;
    const copy = (rels: readonly string[], always: boolean): void => {
      for (const [dir, names] of byDirectory(rels)) {
        try {
          const into = dir === "" ? target : target.dir(dir, true);
          if (!into) throw new GitGoodError("SYMLINK_REFUSED", `${dir} could not be made`);
          try {
            for (const name of names) {
              if (!always && into.has(name)) continue;
              const from = path.join(gitDir, dir, name);
              // An exclusive copy creates the fresh file and never writes through a link; the mode is the source's.
              into.place(name, (fresh) => copyFileSync(from, fresh, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE));
            }
          } finally {
            if (into !== target) into.close();
          }
        } catch (err) {
          problems.push(reason(err));
        }
      }
    };
    for (const rel of plan.absent) {
      const [dir, name] = split(rel);
      try {
        const from = dir === "" ? target : target.dir(dir, false);
        if (!from) continue;
        try {
          from.remove(name);
        } finally {
          if (from !== target) from.close();
        }
      } catch (err) {
        problems.push(reason(err));
      }
    }
    copy(plan.once, false);
    copy(plan.always, true);
  } catch (err) {
    problems.push(reason(err));
  } finally {
    view?.close();
    work.close();
  }
  return problems;
}
