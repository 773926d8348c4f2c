// Benchmark: the viewer on a big run. Writes a synthetic run directory of BENCH_ATTEMPTS attempts (default
// 5,000; each with a trajectory of BENCH_TURNS model turns and tool calls), serves it with `gitgood view`'s
// server, opens it in Debian's chromium (playwright-core, no download) at 1400×900, and prints: the time to
// the first paint of the sample list, the time to open one attempt, the index's size on the wire, and the
// browser's peak JS heap; next to the floor of the same run: reading and parsing results.jsonl in Node.
//
//   npm run build && node bench/view.js
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import { performance } from "node:perf_hooks";
import path from "node:path";
import { chromium } from "playwright-core";
import { RESULTS_SCHEMA_VERSION } from "../dist/runs/record.js";
import { RunStore } from "../dist/runs/store.js";
import { RunSet } from "../dist/view/data.js";
import { serveViewer } from "../dist/view/server.js";

const ATTEMPTS = Number(process.env.BENCH_ATTEMPTS ?? 5000);
const TURNS = Number(process.env.BENCH_TURNS ?? 12);
const CHROMIUM = process.env.GITGOOD_CHROMIUM ?? "/usr/bin/chromium";

const root = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-view-"));
const dir = path.join(root, "run");
const store = RunStore.open(dir, {
  schema_version: RESULTS_SCHEMA_VERSION,
  gitgood_version: "bench",
  identity: { samples: "synthetic", ids: null, limit: null, agent: "llm:bench", model: null, where: null, max_turns: null, memory: false, history: null },
  judges: [],
  limits: { jobs: null, timeout_s: null, max_turns: null },
});
const scenarios = ["MCR", "IR", "ICC"];
const difficulties = ["easy", "medium", "hard"];
for (let i = 0; i < ATTEMPTS; i++) {
  const scenario = scenarios[i % 3];
  const id = `bench_repo_${i % 50}_sample_${String(i).padStart(5, "0")}`;
  const key = `${id}.${scenario}`;
  const events = [{ type: "context", text: `Task ${i}: resolve the conflicts.\n${"context line\n".repeat(20)}`, at_ms: 0 }];
  for (let t = 0; t < TURNS; t++) {
    events.push({ type: "model", at_ms: t * 900 + 400, message: { role: "assistant", content: `Turn ${t}: looking.`, tool_calls: [{ id: `c${t}`, type: "function", function: { name: "view_file_at", arguments: JSON.stringify({ relative_path_from_project_root: "a.py", reason: "look" }) } }] }, usage: { prompt_tokens: 900 + t * 100, completion_tokens: 60 } });
    events.push({ type: "tool_call", tool: "view_file_at", args: { relative_path_from_project_root: "a.py" }, at_ms: t * 900 + 410 });
    events.push({ type: "tool_result", tool: "view_file_at", ok: true, output: "x = 1\n".repeat(40), done: false, at_ms: t * 900 + 420 });
  }
  const sample = { id, name: `acme/repo${i % 50}`, sample_type: "merge" };
  const rel = store.writeTrajectory(key, { schema_version: RESULTS_SCHEMA_VERSION, sample_id: id, scenario, agent: "llm:bench", sample, events });
  const solved = (i * 7) % 10 < 3;
  store.append({
    schema_version: RESULTS_SCHEMA_VERSION, key, sample_id: id, scenario, repository: `acme/repo${i % 50}`, difficulty: difficulties[i % 3], agent: "llm:bench",
    status: i % 97 === 0 ? "error" : "success", solved: i % 97 === 0 ? false : solved, verdict: i % 97 === 0 ? "error" : solved ? "solved" : "unsolved",
    scores: {}, error: i % 97 === 0 ? { code: "MODEL_ERROR", message: "endpoint failed" } : null, turns: TURNS, tool_calls: TURNS,
    tokens: { prompt: 12000, completion: 700 }, cost_usd: 0.01 + (i % 13) / 1000, started_at: "2026-01-01T00:00:00.000Z", duration_ms: 5000 + (i % 200) * 40,
    trajectory: rel, programming_language: ["Python", "Java", "Kotlin"][i % 3],
  });
}

const t0 = performance.now();
const floorRecords = readFileSync(path.join(dir, "results.jsonl"), "utf8").trimEnd().split("\n").map((l) => JSON.parse(l)).length;
const floorMs = performance.now() - t0;

const viewer = await serveViewer({ runs: new RunSet([dir], ["bench"]), host: "127.0.0.1", port: 0 });
const serverStart = performance.now();
const indexBytes = Buffer.byteLength(JSON.stringify(new RunSet([dir], ["bench"]).index()));
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
await page.fill("#search", "sample_0421");
await page.waitForFunction(`/^1 of/.test(document.querySelector("#count")?.textContent ?? "")`);
await page.click("nav button[data-tab=compare]");
await sampleHeap();
const overflow = await page.evaluate("document.documentElement.scrollWidth > document.documentElement.clientWidth");
await browser.close();
await viewer.close();
rmSync(root, { recursive: true, force: true });

console.log(`attempts: ${ATTEMPTS} (${floorRecords} records), ${TURNS} turns each`);
console.log(`floor: read and parse results.jsonl in Node: ${floorMs.toFixed(0)} ms`);
console.log(`the server's index (read, report, JSON), cold: ${serverMs.toFixed(0)} ms (${(serverMs / floorMs).toFixed(1)}× the floor)`);
console.log(`time to first paint of the sample list: ${firstPaint.toFixed(0)} ms (${(firstPaint / floorMs).toFixed(1)}× the floor)`);
console.log(`open one attempt (lazy): ${openMs.toFixed(0)} ms`);
console.log(`index on the wire: ${(indexBytes / 1024 / 1024).toFixed(2)} MiB; peak JS heap in the page: ${(peakHeap / 1024 / 1024).toFixed(1)} MiB`);
console.log(`horizontal scrolling at 1400 px: ${overflow ? "yes (a defect)" : "none"}`);
