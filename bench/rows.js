// The rows of `npm run bench`'s one table: each bench appends its verdicts here when BENCH_ROWS names
// a file (one JSON line each), and bench/all.js prints them together.
import { appendFileSync } from "node:fs";

/** Records one row: what was measured, its goal, the figure and whether the goal was met. */
export function row(measure, goal, figure, met) {
  const file = process.env.BENCH_ROWS;
  if (file) appendFileSync(file, `${JSON.stringify({ measure, goal, figure, verdict: met ? "met" : "missed" })}\n`);
}
