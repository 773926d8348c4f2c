import { readFileSync } from "node:fs";
import path from "node:path";
import type { Fixture } from "./fixture.js";

/**
 * What a real `git merge` of a merge commit's parents leaves behind, in a scratch worktree: the
 * unmerged files (sorted) and the number of `<<<<<<<` regions in each.
 */
export function realMergeConflicts(f: Fixture, mergeCommit: string): { files: string[]; regions: number[] } {
  const wt = path.join(f.scratch("oracle"), mergeCommit.slice(0, 12));
  const [p1, p2] = [f.git("rev-parse", `${mergeCommit}^1`), f.git("rev-parse", `${mergeCommit}^2`)];
  f.git("worktree", "add", "-q", "--detach", wt, p1);
  try {
    f.tryGitIn(wt, "-c", "merge.conflictStyle=merge", "merge", "-q", "--no-commit", "--no-ff", p2);
    const files = f
      .gitIn(wt, "diff", "--name-only", "-z", "--diff-filter=U")
      .split("\0")
      .filter(Boolean)
      .sort();
    const regions = files.map(
      (file) =>
        readFileSync(path.join(wt, file), "latin1")
          .split("\n")
          .filter((l) => /^<{7}( |\r?$)/.test(l)).length,
    );
    return { files, regions };
  } finally {
    f.git("worktree", "remove", "--force", wt);
  }
}

/** Changed lines (+ and -) per file of one commit against its first parent, from `git diff-tree --numstat`. */
export function numstat(f: Fixture, commit: string): Map<string, number> {
  const out = f.git("diff-tree", "--root", "--no-commit-id", "-r", "--no-renames", "--numstat", commit);
  const m = new Map<string, number>();
  for (const line of out.split("\n")) {
    const [a, d, file] = line.split("\t");
    if (!file) continue;
    m.set(file, a === "-" ? 0 : Number(a) + Number(d));
  }
  return m;
}

/** A commit's committer date as git prints it (`%cI`), in the form samples carry it: ISO 8601 in UTC, to the second. */
export function committerDate(f: Fixture, commit: string): string {
  return new Date(f.git("show", "-s", "--format=%cI", commit)).toISOString().replace(/\.\d{3}Z$/, "Z");
}
