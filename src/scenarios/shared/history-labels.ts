import { arr, field, finishedState, num } from "./loose-read.js";

/**
 * The failure labels of a history-rewriting scenario (IR, ICC; docs/failure-labels.md) from its final
 * state and the history checks; `open` names an unfinished history (a rebase in progress, changes left).
 */
export function historyFailureLabels(open: string): (final: unknown, scores: Readonly<Record<string, unknown>>) => string[] {
  return (final, scores) => {
    const checks = scores["checks"];
    const out: string[] = [];
    if (field(final, "base_kept") === false) out.push("outside_range_rewritten");
    if (!finishedState(final)) out.push(open);
    // An unfinished history's tree is the tip's only by chance: what is missing is what is still open.
    else if (field(checks, "tree_matches_tip") === false) out.push("tree_changed");
    if (num(field(checks, "empty_messages")) > 0) out.push("messages_lost");
    if (num(field(checks, "duplicate_messages")) > 0) out.push("commits_duplicated");
    if (emptyCommits(final) > 0) out.push("empty_commits");
    if (out.length === 0 && scores["judge"] !== undefined) out.push("judge_preferred_original");
    return out;
  };
}

/**
 * The commits of a final state that change nothing: a blank patch on a commit with at most one parent. A
 * merge commit's patch is blank whenever it took its tree from a parent (a reworded merge before the
 * range, say), which joins histories rather than committing nothing. Older final states, without
 * parents, count every blank patch, as the history checks do.
 */
function emptyCommits(final: unknown): number {
  return arr(field(final, "commits")).filter((c) => {
    const diff = field(c, "diff");
    return typeof diff === "string" && diff.trim() === "" && arr(field(c, "parents")).length <= 1;
  }).length;
}
