import type { ChainSample } from "../../dataset/sample.js";
import { firstParentLine, readCommits, type Person } from "../../git/commits.js";
import { commitDiffs } from "../../git/diff.js";
import type { Repo } from "../../git/repo.js";
import { at } from "../../util/at.js";

/** The chain's original commits (author, message and patch), oldest first, read from the source repository. */
export async function originalCommits(
  source: Repo,
  sample: ChainSample,
): Promise<{ oid: string; author: Person; message: string; diff: string }[]> {
  const line = await firstParentLine(source, sample.scenario.newest_commit, sample.scenario.times_seen_consecutively);
  const [infos, diffs] = await Promise.all([readCommits(source, line), commitDiffs(source, line)]);
  return line.map((oid, i) => ({ oid, author: at(infos, i).author, message: at(infos, i).message, diff: at(diffs, i) }));
}
