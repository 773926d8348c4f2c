import { field, finishedState, num } from "./loose-read.js";

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
    if (num(field(checks, "empty_commits")) > 0) out.push("empty_commits");
    if (out.length === 0 && scores["judge"] !== undefined) out.push("judge_preferred_original");
    return out;
  };
}
