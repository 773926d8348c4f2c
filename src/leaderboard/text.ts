import type { Leaderboard, LeaderboardEntry } from "./schema.js";

/** A number with `digits` decimals, or `-` where there is none. */
const num = (v: number | null, digits: number): string => (v === null ? "-" : v.toFixed(digits));

/** Cost per solved task with its interval, or why there is none. */
function costCell(e: LeaderboardEntry): string {
  if (e.cost_per_solved !== null) return `$${e.cost_per_solved.usd.toFixed(4)} [${e.cost_per_solved.low.toFixed(4)}, ${e.cost_per_solved.high.toFixed(4)}]`;
  if (e.cost_unknown > 0) return `unknown (${e.cost_unknown} of ${e.attempts})`;
  return "-";
}

/** Solve rate ± its standard error, in percent; unjudged attempts said as such. */
function solveCell(e: LeaderboardEntry): string {
  if (e.solve_rate === null) return e.unjudged > 0 ? `unjudged (${e.unjudged})` : "-";
  return `${e.solve_rate.toFixed(1)} ± ${num(e.standard_error, 1)}`;
}

/** pass@k at the largest k the row has (its repeats), in percent. */
function passCell(e: LeaderboardEntry): string {
  const v = e.pass_at_k?.[String(e.k)];
  return v === undefined ? "-" : `${v.toFixed(1)} (k=${e.k})`;
}

const HEADER = ["rank", "agent", "solve % ± SE", "pass@k", "cost per solved [95 %]", "tokens/attempt", "s/attempt", "tool calls/attempt", "probing"];

/**
 * The leaderboard's first view (all families, repositories and tasks) as a plain table for the terminal:
 * what the site's main table shows, so a build says at once how the runs rank.
 */
export function formatLeaderboard(board: Leaderboard): string {
  const view = board.views[0];
  if (view === undefined) return "no attempts to rank";
  const rows = view.entries.map((e) => [
    e.rank === null ? "-" : String(e.rank),
    e.name,
    solveCell(e),
    passCell(e),
    costCell(e),
    num(e.tokens_per_attempt, 0),
    num(e.seconds_per_attempt, 2),
    num(e.tool_calls_per_attempt, 1),
    e.history_probes.rate === null ? "-" : `${e.history_probes.rate.toFixed(1)} %`,
  ]);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i === 1 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ").trimEnd();
  const tasks = `${view.entries[0]?.tasks ?? 0} tasks`;
  return [`${board.title}: ${board.runs.length} run(s) over the same ${tasks}`, line(HEADER), ...rows.map(line)].join("\n");
}
