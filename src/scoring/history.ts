import type { ChainSample } from "../dataset/sample.js";
import type { Person } from "../git/commits.js";
import type { Repo } from "../git/repo.js";
import { treeOf } from "../git/trees.js";
import { rewardNamed, share, type Scorer } from "./scorer.js";

/** What the history checks need of an IR/ICC final state. */
export interface HistoryOutcome {
  done: boolean;
  pending: string | null;
  tree: string;
  /** Oldest first; `parents` is absent in older trajectories. */
  commits: readonly { oid: string; author: Person; message: string; diff: string; parents?: readonly string[] }[];
}

/** Deterministic facts about an agent's history, recorded with or without a judge. */
export interface HistoryChecks {
  finished: boolean;
  commits: number;
  original_commits: number;
  /** The final tree equals the chain tip's tree (expected unless the agent dropped a commit). */
  tree_matches_tip: boolean;
  empty_messages: number;
  duplicate_messages: number;
  /** Commits that change nothing: a blank patch and at most one parent (a merge commit's combined diff is blank when it takes one side's text). */
  empty_commits: number;
}

/** The deterministic facts about an agent's history, comparing its final tree with the chain tip's in `source`. */
export async function checkHistory(sample: ChainSample, final: HistoryOutcome, source: Repo): Promise<HistoryChecks> {
  const tipTree = await treeOf(source, sample.scenario.newest_commit);
  const messages = final.commits.map((c) => c.message.trim());
  const seen = new Set<string>();
  let duplicates = 0;
  for (const m of messages) {
    if (m && seen.has(m)) duplicates++;
    seen.add(m);
  }
  return {
    finished: final.done && final.pending === null,
    commits: final.commits.length,
    original_commits: sample.scenario.times_seen_consecutively,
    tree_matches_tip: final.tree === tipTree,
    empty_messages: messages.filter((m) => m === "").length,
    duplicate_messages: duplicates,
    empty_commits: final.commits.filter((c) => c.diff.trim() === "" && (c.parents?.length ?? 0) <= 1).length,
  };
}

/** The deterministic checks as a scorer: recorded facts, no verdict of their own. */
export const historyChecks: Scorer<ChainSample, HistoryOutcome> = {
  name: "checks",
  shapedRewards: [
    {
      name: "history_checks",
      description:
        "the share of the five history checks that hold: the work finished, the final tree is the chain tip's, and no commit has an empty or repeated message or changes nothing",
    },
  ],
  shape(value) {
    const held = [value["finished"] === true, value["tree_matches_tip"] === true, value["empty_messages"] === 0, value["duplicate_messages"] === 0, value["empty_commits"] === 0];
    if (typeof value["finished"] !== "boolean") return {};
    return rewardNamed("history_checks", share(held.filter(Boolean).length, held.length));
  },
  async score(sample, final, ctx) {
    return { solved: null, value: { ...(await checkHistory(sample, final, ctx.source)) } };
  },
};
