import { lstatSync } from "node:fs";
import path from "node:path";
import type { Repo } from "../../git/repo.js";

/** Where git keeps a rebase in progress: the merge backend's directory (`rebase -i`, plain rebase) and the apply backend's (`rebase --apply`, `am`). */
const REBASE_DIRS = ["rebase-merge", "rebase-apply"] as const;

/**
 * Whether the repository holds a rebase in progress, read from its git directory (gitgood's own in the
 * sandbox, never the work tree's `.git`) without running git and without following a link: the state
 * the repository is in, whether the tools or git of an agent's own left it so.
 */
export function rebaseLeftInProgress(repo: Repo): boolean {
  return REBASE_DIRS.some((name) => lstatSync(path.join(repo.gitDir, name), { throwIfNoEntry: false }) !== undefined);
}
