import { GitGoodError } from "../../errors.js";
import type { ChainSample } from "../../dataset/sample.js";
import { commitsAfter, firstParentLine, readCommits, requireCommits } from "../../git/commits.js";
import { commitDiffs } from "../../git/diff.js";
import { headCommit } from "../../git/refs.js";
import type { Repo } from "../../git/repo.js";
import { treeOf } from "../../git/trees.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import type { Chain, CommitRecord, HistoryFinalState } from "./schemas.js";
import { at } from "../../util/at.js";

export type { Chain } from "./schemas.js";

/** Reads the chain of a sample from its source repository: the first-parent line from the newest commit back to the oldest. */
export async function loadChain(source: Repo, sample: ChainSample): Promise<Chain> {
  const { newest_commit: newest, oldest_commit: oldest, times_seen_consecutively: length } = sample.scenario;
  await requireCommits(source, [newest, oldest]);
  const oids = await firstParentLine(source, newest, length);
  if (oids.length !== length || oids[0] !== oldest) {
    throw new GitGoodError(
      "SAMPLE_MISMATCH",
      `the ${length} first-parent commits ending at ${newest} do not start at ${oldest}`,
      { sample: sample.id },
    );
  }
  const infos = await readCommits(source, oids);
  const first = infos[0];
  const tip = infos[infos.length - 1];
  if (!first || !tip) throw new GitGoodError("SAMPLE_MISMATCH", "the chain is empty", { sample: sample.id });
  const base = first.parents[0];
  if (!base) {
    throw new GitGoodError("SAMPLE_MISMATCH", `the chain's oldest commit ${oldest} has no parent`, { sample: sample.id });
  }
  if (infos.some((c) => c.parents.length > 1)) {
    throw new GitGoodError("SAMPLE_MISMATCH", "the chain contains a merge commit", { sample: sample.id });
  }
  return {
    base,
    commits: infos.map((c) => ({ oid: c.oid, subject: c.subject })),
    tip: { oid: tip.oid, subject: tip.subject },
    tipTree: tip.tree,
    author: tip.author,
    committer: tip.committer,
    committerEnv: {
      GIT_COMMITTER_NAME: tip.committer.name,
      GIT_COMMITTER_EMAIL: tip.committer.email,
      GIT_COMMITTER_DATE: tip.committer.date,
    },
  };
}

/**
 * The commits from `base` (exclusive) to HEAD, oldest first, with message, author and patch; and whether
 * HEAD still descends from `base`: it does when HEAD is `base` or one of the listed commits has `base` as a
 * parent (a commit reachable from HEAD and not from `base` whose parent is `base`), read from the commits
 * already read, with no git process of its own.
 */
async function commitsSince(sandbox: Sandbox, base: string, head: string): Promise<{ commits: CommitRecord[]; baseKept: boolean }> {
  const oids = await commitsAfter(sandbox.repo, base);
  const [infos, diffs] = await Promise.all([readCommits(sandbox.repo, oids), commitDiffs(sandbox.repo, oids)]);
  const commits = oids.map((oid, i) => {
    const info = at(infos, i);
    return { oid, message: info.message, author: info.author, diff: at(diffs, i), parents: info.parents };
  });
  return { commits, baseKept: head === base || infos.some((c) => c.parents.includes(base)) };
}

export async function chainFinalState(
  sandbox: Sandbox,
  base: string,
  done: boolean,
  pending: string | null,
): Promise<HistoryFinalState> {
  const head = await headCommit(sandbox.repo);
  const tree = await treeOf(sandbox.repo, "HEAD");
  const { commits, baseKept } = await commitsSince(sandbox, base, head);
  return { done, base, head, tree, commits, pending, base_kept: baseKept };
}
