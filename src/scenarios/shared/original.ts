import type { ChainSample } from "../../dataset/sample.js";
import { firstParentLine, readCommits, type Person } from "../../git/commits.js";
import { commitDiffs } from "../../git/diff.js";
import type { Repo } from "../../git/repo.js";
import { at } from "../../util/at.js";

/** The chain's original commits (author, message and patch), oldest first, read from the source repository. */
export function originalCommits(source: Repo, sample: ChainSample): Promise<OriginalCommit[]> {
  const key = `${sample.scenario.newest_commit} ${sample.scenario.times_seen_consecutively}`;
  let cache = read.get(source);
  if (!cache) read.set(source, (cache = new Map()));
  let found = cache.get(key);
  if (!found) {
    found = readOriginal(source, sample);
    cache.set(key, found);
    // Kept while the attempt scores (its scorers and its ground-truth view ask), not for the whole run.
    found.then(
      () => void setTimeout(() => cache.delete(key), ORIGINAL_KEPT_MS).unref(),
      () => cache.delete(key),
    );
  }
  return found;
}

export interface OriginalCommit {
  oid: string;
  author: Person;
  message: string;
  diff: string;
}

/** How long a chain read from a source stays cached for the next question about it. */
const ORIGINAL_KEPT_MS = 60_000;

/** The chains read per source handle, by tip and length. */
const read = new WeakMap<Repo, Map<string, Promise<OriginalCommit[]>>>();

async function readOriginal(source: Repo, sample: ChainSample): Promise<OriginalCommit[]> {
  const line = await firstParentLine(source, sample.scenario.newest_commit, sample.scenario.times_seen_consecutively);
  const [infos, diffs] = await Promise.all([readCommits(source, line), commitDiffs(source, line)]);
  return line.map((oid, i) => ({ oid, author: at(infos, i).author, message: at(infos, i).message, diff: at(diffs, i) }));
}
