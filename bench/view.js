// Benchmark: the viewer on a big run. Writes a synthetic run directory of BENCH_ATTEMPTS attempts (default
// 5,000; each with a trajectory of BENCH_TURNS model turns and tool calls), serves it with `gitgood view`'s
// server, opens it in Debian's chromium (playwright-core, no download) at 1400×900, and prints: the time
// from starting `gitgood view` to its address on stdout, the time to the first paint of the sample list, the time to open one attempt, the index's size on the wire, and the
// browser's peak JS heap; next to the floor of the same run: reading and parsing results.jsonl in Node.
//
//   npm run build && node bench/view.js
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import { performance } from "node:perf_hooks";
import path from "node:path";
import { chromium } from "playwright-core";
import { RunSet } from "../dist/view/data.js";
import { serveViewer } from "../dist/view/server.js";
import { writeSyntheticRun } from "./synthetic-run.js";

const ATTEMPTS = Number(process.env.BENCH_ATTEMPTS ?? 5000);
const TURNS = Number(process.env.BENCH_TURNS ?? 12);
const CHROMIUM = process.env.GITGOOD_CHROMIUM ?? "/usr/bin/chromium";

const root = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-view-"));
const dir = path.join(root, "run");
writeSyntheticRun(dir, ATTEMPTS, TURNS);

const t0 = performance.now();
const floorRecords = readFileSync(path.join(dir, "results.jsonl"), "utf8").trimEnd().split("\n").map((l) => JSON.parse(l)).length;
const floorMs = performance.now() - t0;

/** Starts `gitgood view DIR` as a user would and times it to the address on its stdout; then stops it. */
async function timeToAddress() {
  const bin = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "bin", "gitgood.js");
  const begin = performance.now();
  const child = spawn(process.execPath, [bin, "view", dir], { stdio: ["ignore", "pipe", "ignore"] });
  const ms = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("\n")) resolve(performance.now() - begin);
    });
    child.once("exit", (code) => reject(new Error(`gitgood view exited (${code}) before printing its address`)));
  });
  child.removeAllListeners("exit");
  child.kill("SIGTERM");
  return ms;
}
const addressMs = await timeToAddress();

const viewer = await serveViewer({ runs: new RunSet([dir], ["bench"]), host: "127.0.0.1", port: 0 });
const serverStart = performance.now();
const indexBytes = Buffer.byteLength(JSON.stringify(await new RunSet([dir], ["bench"]).index()));
const serverMs = performance.now() - serverStart;
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu", "--enable-precise-memory-info"] });
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
const cdp = await page.context().newCDPSession(page);
await cdp.send("Performance.enable");
let peakHeap = 0;
const sampleHeap = async () => {
  const { metrics } = await cdp.send("Performance.getMetrics");
  const used = metrics.find((m) => m.name === "JSHeapUsedSize")?.value ?? 0;
  peakHeap = Math.max(peakHeap, used);
};
const start = performance.now();
await page.goto(viewer.url);
await page.waitForSelector("#count", { state: "attached" });
const firstPaint = performance.now() - start;
await sampleHeap();
await page.click("nav button[data-tab=samples]");
const openStart = performance.now();
await page.click("#rows tbody tr:nth-child(1)");
await page.waitForSelector("#attempt-title");
const openMs = performance.now() - openStart;
await sampleHeap();
await page.fill("#search", "sample_04210");
// A locator, not waitForFunction: the viewer's content security policy forbids evaluating strings.
await page.locator("#count", { hasText: /^1 of/ }).waitFor();
await page.click("nav button[data-tab=compare]");
await sampleHeap();
const overflow = await page.evaluate("document.documentElement.scrollWidth > document.documentElement.clientWidth");
await browser.close();
await viewer.close();
rmSync(root, { recursive: true, force: true });

console.log(`attempts: ${ATTEMPTS} (${floorRecords} records), ${TURNS} turns each`);
console.log(`floor: read and parse results.jsonl in Node: ${floorMs.toFixed(0)} ms`);
console.log(`the server's index (read, report, JSON), cold: ${serverMs.toFixed(0)} ms (${(serverMs / floorMs).toFixed(1)}× the floor)`);
console.log(`gitgood view: time to its address: ${addressMs.toFixed(0)} ms`);
console.log(`time to first paint of the sample list: ${firstPaint.toFixed(0)} ms (${(firstPaint / floorMs).toFixed(1)}× the floor)`);
console.log(`open one attempt (lazy): ${openMs.toFixed(0)} ms`);
console.log(`index on the wire: ${(indexBytes / 1024 / 1024).toFixed(2)} MiB; peak JS heap in the page: ${(peakHeap / 1024 / 1024).toFixed(1)} MiB`);
console.log(`horizontal scrolling at 1400 px: ${overflow ? "yes (a defect)" : "none"}`);
