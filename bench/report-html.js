// Benchmark: `gitgood report --html` on a big run. Writes a synthetic run directory of BENCH_ATTEMPTS
// attempts (default 5,000; BENCH_TURNS model turns each), runs the real CLI to write the static page under
// /usr/bin/time, and prints the page's size, the writer's peak RSS and its time, next to the floor of the
// same run: `gitgood report --json` (reading the records and building the report, no page). Then opens the
// page in Debian's chromium (playwright-core, no download) and prints the time to the first paint of the
// sample list and to open one attempt (decoded on demand). Goals (issue 23): ≤ 10 MB, ≤ 200 MB RSS.
//
//   npm run build && node bench/report-html.js
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { writeSyntheticRun } from "./synthetic-run.js";

const ATTEMPTS = Number(process.env.BENCH_ATTEMPTS ?? 5000);
const TURNS = Number(process.env.BENCH_TURNS ?? 12);
const CHROMIUM = process.env.GITGOOD_CHROMIUM ?? "/usr/bin/chromium";
const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "bin", "gitgood.js");

const root = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-report-html-"));
const dir = path.join(root, "run");
writeSyntheticRun(dir, ATTEMPTS, TURNS);
const trajectoryBytes = Number(execFileSync("du", ["-sb", path.join(dir, "trajectories")], { encoding: "utf8" }).split("\t")[0]);

/** Runs the CLI under /usr/bin/time (its line goes to stderr, the CLI's output is dropped): wall milliseconds and peak RSS in MB. */
function measured(args) {
  const start = performance.now();
  const err = execFileSync("sh", ["-c", `/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1`, "sh", process.execPath, BIN, ...args], { encoding: "utf8" });
  return { ms: performance.now() - start, rssMb: Number(err.trim()) / 1024 };
}

const page = path.join(root, "report.html");
const floors = [];
const writes = [];
for (let i = 0; i < 3; i++) {
  floors.push(measured(["report", dir, "--json"]));
  writes.push(measured(["report", dir, "--html", page]));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const size = statSync(page).size;

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
const t0 = performance.now();
await tab.goto(`file://${page}`);
await tab.waitForSelector("#count", { state: "attached" });
const paint = performance.now() - t0;
await tab.click("nav button[data-tab=samples]");
const t1 = performance.now();
await tab.click("#rows tbody tr:nth-child(1)");
await tab.waitForSelector("#attempt-title");
const open = performance.now() - t1;
const turnsShown = await tab.locator("#detail .turn").count();
if (turnsShown !== TURNS) throw new Error(`the opened attempt shows ${turnsShown} turns, not ${TURNS}: the page lost its transcripts`);
const heap = await tab.evaluate("performance.memory ? performance.memory.usedJSHeapSize : 0");
await browser.close();
rmSync(root, { recursive: true, force: true });

console.log(`attempts: ${ATTEMPTS}, ${TURNS} turns each; trajectories on disk ${(trajectoryBytes / 1e6).toFixed(1)} MB; load average ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}`);
console.log(`floor (report --json, median of 3): ${median(floors.map((f) => f.ms)).toFixed(0)} ms, ${median(floors.map((f) => f.rssMb)).toFixed(0)} MB RSS`);
console.log(`report --html (median of 3): ${median(writes.map((f) => f.ms)).toFixed(0)} ms (${(median(writes.map((f) => f.ms)) / median(floors.map((f) => f.ms))).toFixed(2)}× the floor), peak RSS ${median(writes.map((f) => f.rssMb)).toFixed(0)} MB (goal ≤ 200 MB)`);
console.log(`page: ${(size / 1e6).toFixed(2)} MB (goal ≤ 10 MB), ${((100 * size) / trajectoryBytes).toFixed(1)} % of the trajectories' size`);
console.log(`in chromium: first paint of the sample list ${paint.toFixed(0)} ms, open one attempt ${open.toFixed(0)} ms, JS heap ${(heap / 1e6).toFixed(1)} MB`);
