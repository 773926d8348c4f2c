import type { ChainSample } from "../../dataset/sample.js";
import { plainDiff } from "../../git/diff.js";
import { treeOf } from "../../git/trees.js";
import type { Repo } from "../../git/repo.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { originalCommits } from "./original.js";
import type { HistoryFinalState } from "./schemas.js";

/**
 * An IR/ICC result next to the original chain, for reports: both lists of subjects and the tree diff
 * to the tip. The original is read from the source; the diff is made in the sandbox, which holds the
 * tip's tree (but, for ICC, not the tip commit) and the agent's commits.
 */
export async function historyGroundTruth(
  sandbox: Sandbox,
  sample: ChainSample,
  final: HistoryFinalState,
  source: Repo,
): Promise<string> {
  const original = await originalCommits(source, sample);
  const subjects = (commits: readonly { message: string }[]): string =>
    commits.map((c, i) => `  ${i + 1}. ${c.message.split("\n")[0] ?? ""}`).join("\n") || "  (none)";
  const tipTree = await treeOf(source, sample.scenario.newest_commit);
  const treeDiff = final.tree === tipTree ? "" : await plainDiff(sandbox.repo, tipTree, { to: final.head });
  const summary = [
    `Original commits (${original.length}):`,
    subjects(original),
    `Agent's commits (${final.commits.length}):`,
    subjects(final.commits),
    treeDiff ? "Final tree against the chain tip:" : "Final tree: identical to the chain tip.",
  ].join("\n");
  return treeDiff ? `${summary}\n${treeDiff}` : summary;
}

/** An IR/ICC final state in a few lines for people. */
export function describeHistory(name: string, state: HistoryFinalState): string {
  const lines = [
    `${name}: ${state.done ? "finished" : `not finished (${state.pending ?? "open"})`}`,
    `base ${state.base}  head ${state.head}  tree ${state.tree}`,
  ];
  for (const c of state.commits) {
    lines.push(`  ${c.oid.slice(0, 12)} ${c.author.name} <${c.author.email}>  ${c.message.split("\n")[0] ?? ""}`);
  }
  return lines.join("\n");
}
