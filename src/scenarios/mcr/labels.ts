import { arr, field, num } from "../shared/loose-read.js";

const CONFLICT_MARKER = /^(<{7}|>{7})( |$)/m;

/** `region_took_ours`, `region_took_theirs`, `region_took_neither`: the sides differing regions took, in that order. */
function regionSideLabels(score: unknown): string[] {
  const took = new Set(arr(field(score, "files")).flatMap((m) => arr(field(m, "regions")).map((r) => field(r, "took"))));
  return (["ours", "theirs", "neither"] as const).filter((s) => took.has(s)).map((s) => `region_took_${s}`);
}

/** MCR's failure labels (docs/failure-labels.md), from its final state and the exact-match score. */
export function mcrFailureLabels(final: unknown, scores: Readonly<Record<string, unknown>>): string[] {
  const score = scores["exact_match"];
  const out: string[] = [];
  const left = num(field(final, "conflicts_left"));
  const committed = field(final, "tree") !== null && field(final, "tree") !== undefined;
  if (left > 0) out.push("conflicts_left");
  if (!committed || field(final, "done") === false) out.push("merge_not_committed");
  // Markers in a file whose conflicts are all resolved: a region still open shows its markers by design.
  const files = arr(field(final, "files"));
  const marked = (f: unknown): boolean => field(f, "encoding") === "utf8" && typeof field(f, "content") === "string" && CONFLICT_MARKER.test(field(f, "content") as string);
  if (left === 0 && files.some(marked)) out.push("markers_left");
  // How the regions were resolved is judged once they all are.
  if (left === 0) {
    const differing = arr(field(score, "files")).some((m) => field(m, "exact") === false);
    if (differing) out.push("region_resolved_differently", ...regionSideLabels(score));
    else if (committed && field(score, "tree_matches") === false) out.push("outside_files_changed");
  }
  if (field(score, "resolvable") === false) out.push("unresolvable");
  return out;
}
