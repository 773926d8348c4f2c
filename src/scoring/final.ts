import type { ModelClient } from "../agents/model.js";
import type { ChainSample, MergeSample, Sample } from "../dataset/sample.js";
import { firstParentLine, readCommit } from "../git/commits.js";
import { commitDiff, plainDiff } from "../git/diff.js";
import type { Repo } from "../git/repo.js";
import type { FinalState, LiveScenario } from "../scenarios/types.js";
import { checkHistory } from "./history.js";
import { judgeHistories, type JudgedCommit } from "./judge.js";
import { scoreMerge } from "./merge.js";

/** The chain's original commits (message and diff), oldest first, read in the sandbox. */
async function originalHistory(scenario: LiveScenario, sample: ChainSample): Promise<JudgedCommit[]> {
  const repo = scenario.sandbox.repo;
  const line = await firstParentLine(repo, sample.scenario.newest_commit, sample.scenario.times_seen_consecutively);
  const out: JudgedCommit[] = [];
  for (const oid of line) {
    const info = await readCommit(repo, oid);
    out.push({ message: info.message, diff: await commitDiff(repo, oid) });
  }
  return out;
}

export interface Scored {
  scores: Record<string, unknown>;
  /** null when an IR/ICC history was not judged. */
  solved: boolean | null;
  /** The agent's result against the ground truth, as a diff (for reports). */
  groundTruthDiff: string;
}

/**
 * Scores a scenario's final state: MCR by exact match with the merge commit; IR/ICC by deterministic
 * checks, and by the pairwise judge when judges are given. Shared by `gitgood run` and the MCP server.
 */
export async function scoreFinal(
  sample: Sample,
  scenario: LiveScenario,
  final: FinalState,
  source: Repo,
  judges: readonly ModelClient[],
): Promise<Scored> {
  const repo = scenario.sandbox.repo;
  if (final.kind === "mcr") {
    const merge = sample as MergeSample;
    const s = await scoreMerge(merge, final, source);
    const paths = final.files.map((f) => f.path);
    return { scores: { ...s }, solved: s.solved, groundTruthDiff: await plainDiff(repo, merge.scenario.merge_commit_hash, { paths }) };
  }
  const chain = sample as ChainSample;
  const checks = await checkHistory(chain, final, source);
  const scores: Record<string, unknown> = { checks };
  let solved: boolean | null = null;
  const original = await originalHistory(scenario, chain);
  if (judges.length > 0) {
    const verdict = await judgeHistories(
      judges,
      original,
      final.commits.map((c) => ({ message: c.message, diff: c.diff })),
    );
    scores.judge = verdict;
    solved = checks.finished && verdict.solved;
  }
  const subjects = (commits: readonly { message: string }[]): string =>
    commits.map((c, i) => `  ${i + 1}. ${c.message.split("\n")[0] ?? ""}`).join("\n") || "  (none)";
  const treeDiff = await plainDiff(repo, chain.scenario.newest_commit, { to: final.head });
  const summary = [
    `Original commits (${original.length}):`,
    subjects(original),
    `Agent's commits (${final.commits.length}):`,
    subjects(final.commits),
    treeDiff ? "Final tree against the chain tip:" : "Final tree: identical to the chain tip.",
  ].join("\n");
  return { scores, solved, groundTruthDiff: treeDiff ? `${summary}\n${treeDiff}` : summary };
}

