// `npm run bench`: every bench in turn (their own output as they go), then ONE table of the goals with
// the figure measured for each and the machine's load average. After `npm run build`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = (name) => fileURLToPath(new URL(name, import.meta.url));
const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-rows-"));
const rowsFile = path.join(dir, "rows.jsonl");
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(" ");
const startLoad = load();
const failed = [];
try {
  for (const [bench, args] of [["startup.js", []], ["mine.js", process.argv.slice(2)], ["setup.js", []], ["run-jobs.js", []], ["run-waits.js", []], ["swe.js", []], ["view.js", []], ["queue.js", []]]) {
    console.log(`\n== bench/${bench}`);
    const r = spawnSync(process.execPath, [here(`./${bench}`), ...args], { stdio: "inherit", env: { ...process.env, BENCH_ROWS: rowsFile } });
    if (r.status !== 0) failed.push(bench);
  }
  let rows = [];
  try {
    rows = readFileSync(rowsFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  } catch {
    /* no bench wrote a row */
  }
  console.log(`\n| measure | goal | figure | verdict |\n|---|---|---|---|`);
  for (const r of rows) console.log(`| ${r.measure} | ${r.goal} | ${r.figure} | ${r.verdict} |`);
  console.log(`\n${os.availableParallelism()} cores; load average ${startLoad} at the start, ${load()} at the end${failed.length ? `; failed: ${failed.join(", ")}` : ""}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed.length ? 1 : 0;
