import { GitGoodError } from "../../errors.js";
import type { RunResult } from "../../git/process.js";
import type { Repo, RunOptions } from "../../git/repo.js";
import type { Sandbox } from "../../sandbox/sandbox.js";

/** A sandbox (its own git environment) or a repository read directly. */
type Where = Sandbox | Repo;

function git(where: Where, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  return "workDir" in where ? where.git(args, opts) : where.run(args, opts);
}

async function text(where: Where, args: readonly string[], opts: RunOptions = {}): Promise<string> {
  return (await git(where, args, opts)).stdout.toString("utf8");
}

/** Options for every diff shown to an agent or recorded in a final state: the same bytes on every machine. */
export const DIFF_OPTIONS: readonly string[] = [
  "--no-color",
  "--no-ext-diff",
  "--no-textconv",
  "--no-renames",
  "-U3",
  "--src-prefix=a/",
  "--dst-prefix=b/",
];

export interface Person {
  name: string;
  email: string;
  /** Git's raw form: seconds since the epoch and the zone, e.g. `1704067260 +0000`. */
  date: string;
}

export interface CommitInfo {
  oid: string;
  tree: string;
  parents: string[];
  author: Person;
  committer: Person;
  subject: string;
  message: string;
  /** Committer date, ISO 8601 (for people). */
  committedIso: string;
}

const FORMAT = ["%H", "%T", "%P", "%an", "%ae", "%ad", "%cn", "%ce", "%cd", "%cI", "%s", "%B"].join("%x00");

/** Reads one commit's metadata and message. */
export async function readCommit(sandbox: Where, rev: string): Promise<CommitInfo> {
  const r = await git(sandbox, ["show", "-s", "--date=raw", `--format=${FORMAT}`, "--end-of-options", rev], {
    okCodes: [0, 128],
  });
  if (r.code !== 0) {
    throw new GitGoodError("MISSING_COMMIT", `commit ${rev} is not in the source repository`, { commit: rev });
  }
  const f = r.stdout.toString("utf8").split("\0");
  const at = (i: number): string => f[i] ?? "";
  return {
    oid: at(0),
    tree: at(1),
    parents: at(2) === "" ? [] : at(2).split(" "),
    author: { name: at(3), email: at(4), date: at(5) },
    committer: { name: at(6), email: at(7), date: at(8) },
    committedIso: at(9),
    subject: at(10),
    message: f.slice(11).join("\0").replace(/\n+$/, ""),
  };
}

/** Environment that makes git record `author` and `committer` exactly (for commits the scenario makes). */
export function identityEnv(author: Person, committer: Person): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_AUTHOR_DATE: author.date,
    GIT_COMMITTER_NAME: committer.name,
    GIT_COMMITTER_EMAIL: committer.email,
    GIT_COMMITTER_DATE: committer.date,
  };
}

/** The patch a commit introduces, against its first parent. */
export async function commitDiff(sandbox: Where, oid: string): Promise<string> {
  return text(sandbox, ["diff-tree", "-p", "--root", "--no-commit-id", ...DIFF_OPTIONS, oid]);
}

/** Fails with MISSING_COMMIT naming the first of `oids` the sandbox cannot read (a shallow or partial source). */
export async function requireCommits(sandbox: Sandbox, oids: readonly string[]): Promise<void> {
  const out = await sandbox.text(["cat-file", "--batch-check=%(objectname) %(objecttype)"], {
    input: oids.map((o) => `${o}\n`).join(""),
  });
  const lines = out.split("\n");
  oids.forEach((oid, i) => {
    if (!(lines[i] ?? "").endsWith(" commit")) {
      throw new GitGoodError("MISSING_COMMIT", `commit ${oid} is not in the source repository`, { commit: oid });
    }
  });
}

/** The first-parent line of `count` commits ending at `tip`, oldest first. */
export async function firstParentLine(sandbox: Where, tip: string, count: number): Promise<string[]> {
  const out = await text(sandbox, ["rev-list", "--first-parent", `--max-count=${count}`, tip]);
  return out.split("\n").filter(Boolean).reverse();
}

/** The paths git reports as unmerged (conflicted), each once, in git's order. */
export async function unmergedPaths(sandbox: Sandbox): Promise<string[]> {
  const out = await sandbox.text(["diff", "--name-only", "--diff-filter=U", "-z"]);
  return [...new Set(out.split("\0").filter(Boolean))];
}
