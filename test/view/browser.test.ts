import { request } from "node:http";
import { appendFileSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRun } from "../../src/export/attempts.js";
import { RESULTS_FILE } from "../../src/runs/store.js";
import { RunSet } from "../../src/view/data.js";
import { serveViewer, type ViewHandle } from "../../src/view/server.js";
import { buildExportRuns, type ExportFixture } from "../export/runs.js";

/** Debian's chromium; the test never downloads a browser. */
const CHROMIUM = process.env.GITGOOD_CHROMIUM ?? "/usr/bin/chromium";
/** Without chromium the suite's start stops (scripts/system-deps.js), unless GITGOOD_SKIP_SYSTEM_TESTS=1 asked to skip. */
const noBrowser = !existsSync(CHROMIUM);
const shots = mkdtempSync(path.join(os.tmpdir(), "gitgood-view-shots-"));

let ex: ExportFixture;
let viewer: ViewHandle;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (noBrowser) return;
  ex = await buildExportRuns();
  viewer = await serveViewer({ runs: new RunSet([ex.llmRun, ex.oracleRun], ["llm", "oracle"]), host: "127.0.0.1", port: 0 });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(viewer.url);
  await page.waitForSelector("#count", { state: "attached" });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  ex?.cleanup();
  console.log(`viewer screenshots in ${shots}`);
});

/** No table or panel makes the page scroll sideways. */
async function noHorizontalScroll(): Promise<void> {
  const [scroll, client] = (await page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")) as [number, number];
  expect(scroll).toBeLessThanOrEqual(client);
}

/** The status of a GET with a Host header of one's choosing (fetch does not let a caller set it). */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { Host: host, Authorization: `Bearer ${viewer.token}` } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

/** The cells' text of the sample list's rows as shown. */
const visibleRows = async (): Promise<string[][]> =>
  (await page.evaluate(`Array.from(document.querySelectorAll("#rows tbody tr")).map((tr) => Array.from(tr.querySelectorAll("td")).map((td) => td.textContent ?? ""))`)) as string[][];

describe.skipIf(noBrowser)("gitgood view in a real browser", () => {
  it("shows the summary with tables and hand-made SVG plots, without scrolling sideways", async () => {
    expect(await page.locator("#summary h2").first().textContent()).toMatch(/llm/);
    // The runs have no repeats: no pass@k panel, a line saying so.
    expect(await page.locator("#summary svg").count()).toBe(2);
    expect(await page.textContent("#empty-plots")).toMatch(/pass@k/);
    await noHorizontalScroll();
    await page.screenshot({ path: path.join(shots, "1-summary.png"), fullPage: true });
  });

  it("searches the samples by id and filters them by verdict", async () => {
    await page.click("nav button[data-tab=samples]");
    const easy = readRun(ex.llmRun).records[0]!;
    await page.fill("#search", easy.sample_id);
    await expect.poll(async () => (await visibleRows()).length).toBe(2);
    for (const row of await visibleRows()) expect(row[1]).toContain(easy.sample_id);
    await page.fill("#search", "");
    await page.selectOption("#filter-verdict", "unjudged");
    const unjudged = readRun(ex.oracleRun).records.filter((r) => r.verdict === "unjudged").length;
    await expect.poll(async () => (await visibleRows()).length).toBe(unjudged);
    for (const row of await visibleRows()) expect(row[3]).toMatch(/^unjudged/);
    await page.selectOption("#filter-verdict", "");
    await noHorizontalScroll();
  });

  it("opens an attempt's transcript: turns with tokens and latency, tool calls with arguments and results, the outcome", async () => {
    const key = readRun(ex.llmRun).records[0]!.key;
    await page.click(`#rows tr[data-run="0"][data-key="${key}"]`);
    await page.waitForSelector("#attempt-title");
    const detail = (await page.textContent("#detail")) ?? "";
    expect(detail).toMatch(/turn 1 · 10 prompt \+ 5 completion tokens/);
    expect(detail).toContain("view_current_merge_conflict_with");
    expect(detail).toContain('"context_window_size": 2');
    expect(detail).toMatch(/malformed arguments for resolve_current_merge_conflict_with/);
    expect(detail).toMatch(/exact_match\.solved|exact_match/);
    await noHorizontalScroll();
    await page.screenshot({ path: path.join(shots, "2-transcript.png"), fullPage: true });
  });

  it("compares the runs: a matrix with 'solved here, not there'", async () => {
    await page.click("nav button[data-tab=compare]");
    const llm = readRun(ex.llmRun).records;
    const oracle = readRun(ex.oracleRun).records;
    const solvedIn = (rs: typeof llm, r: (typeof llm)[number]) => rs.some((x) => x.sample_id === r.sample_id && x.scenario === r.scenario && x.solved === true);
    const expected = oracle.filter((r) => r.solved === true && !solvedIn(llm, r)).length;
    expect(expected).toBeGreaterThan(0);
    await page.selectOption("#cmp-a", "1");
    await page.selectOption("#cmp-b", "0");
    await page.check("#only");
    await expect.poll(async () => page.locator("#matrix tbody tr").count()).toBe(expected);
    expect(await page.locator("#matrix tbody td[data-verdict=solved]").count()).toBe(expected);
    await noHorizontalScroll();
    await page.screenshot({ path: path.join(shots, "3-compare.png"), fullPage: true });
  });

  it("compares spend and effort on the samples both runs attempted: turns, time and errors with their denominators, unpriced runs without a cost", async () => {
    const runs = [readRun(ex.llmRun).records, readRun(ex.oracleRun).records];
    const pair = (r: (typeof runs)[0][number]) => `${r.sample_id}\u0000${r.scenario}`;
    const shared = new Set(runs[0]!.map(pair).filter((k) => runs[1]!.some((r) => pair(r) === k)));
    const rowOf = async (measure: string) =>
      (await page.evaluate(`Array.from(document.querySelectorAll("#effort tbody tr")).map((tr) => Array.from(tr.cells).map((td) => td.textContent)).find((r) => r[0] === "total" && r[1] === ${JSON.stringify(measure)})`)) as string[];
    const expected = runs.map((rs) => rs.filter((r) => shared.has(pair(r))));
    expect(expected[0]!.length).toBeGreaterThan(0);
    const turns = expected.map((rs) => `${(rs.reduce((a, r) => a + r.turns, 0) / rs.length).toFixed(1)} (n=${rs.length})`);
    await expect.poll(() => rowOf("turns/attempt")).toEqual(["total", "turns/attempt", ...turns]);
    expect(await rowOf("errors")).toEqual(["total", "errors", ...expected.map((rs) => `${rs.filter((r) => r.status === "error").length}/${rs.length}`)]);
    expect((await rowOf("time/attempt")).slice(2).every((c) => /^\d+\.\ds \(n=\d+\)$/.test(c))).toBe(true);
    // No attempt of either run is priced: a dash, never "$0".
    expect(expected.every((rs) => rs.every((r) => r.cost_usd === null))).toBe(true);
    expect(await rowOf("cost/attempt")).toEqual(["total", "cost/attempt", "–", "–"]);
  });

  it("counts unjudged attempts as unjudged, never as 0% solves: the rates, their delta and the plots", async () => {
    const oracle = readRun(ex.oracleRun).records;
    const unjudgedIr = oracle.filter((r) => r.scenario === "IR" && r.verdict === "unjudged").length;
    expect(unjudgedIr).toBeGreaterThan(0);
    await page.uncheck("#only");
    const irRow = (await page.evaluate(`Array.from(document.querySelectorAll("#rates tbody tr")).map((tr) => Array.from(tr.cells).map((td) => td.textContent)).find((r) => r[0] === "IR")`)) as string[];
    // scenario, llm (no IR attempt), oracle, delta: rates are compared on the pairs both runs attempted, and the llm run
    // has no IR attempt, so IR has none to compare; the oracle's unjudged IR attempts show in the matrix below.
    expect(irRow).toEqual(["IR", "–", "–", "–"]);
    expect(await page.locator("#matrix tbody td[data-verdict=unjudged]").first().textContent()).toBe("unjudged");
    await page.click("nav button[data-tab=summary]");
    expect(await page.locator("#summary .unjudged-note").first().textContent()).toMatch(/^unjudged, not plotted: .*oracle/);
  });

  it("follows a run as it writes: a new result appears without reloading", async () => {
    await page.click("nav button[data-tab=samples]");
    const before = (await visibleRows()).length;
    const line = readFileSync(path.join(ex.llmRun, RESULTS_FILE), "utf8").trimEnd().split("\n")[0]!;
    const copy = { ...JSON.parse(line), key: "late_arrival.MCR", sample_id: "late_arrival", trajectory: null };
    appendFileSync(path.join(ex.llmRun, RESULTS_FILE), `${JSON.stringify(copy)}\n`);
    await expect.poll(async () => (await visibleRows()).length, { timeout: 20_000 }).toBe(before + 1);
  });

  it("keeps a long sample id on one line, cut in its middle so that its end shows, the whole id in its title", async () => {
    await page.click("nav button[data-tab=samples]");
    const long = `${"very_long_owner_name_".repeat(8)}merge_0001`;
    const line = readFileSync(path.join(ex.llmRun, RESULTS_FILE), "utf8").trimEnd().split("\n")[0]!;
    appendFileSync(path.join(ex.llmRun, RESULTS_FILE), `${JSON.stringify({ ...JSON.parse(line), key: `${long}.MCR`, sample_id: long, trajectory: null })}\n`);
    const cell = page.locator(`#rows tr[data-key="${long}.MCR"] td.id`);
    await cell.waitFor({ timeout: 20_000 });
    expect(await cell.getAttribute("title")).toBe(long);
    // The head is cut with an ellipsis; the tail (the number that tells rows apart) is shown whole, inside the cell.
    const [headScroll, headClient, overflow, tailRight, cellRight] = (await page.evaluate(`(() => { const td = document.querySelector('#rows tr[data-key="${long}.MCR"] td.id'); const h = td.querySelector(".id-head"), t = td.querySelector(".id-tail"); return [h.scrollWidth, h.clientWidth, getComputedStyle(h).textOverflow, t.getBoundingClientRect().right, td.getBoundingClientRect().right]; })()`)) as [number, number, string, number, number];
    expect(headScroll).toBeGreaterThan(headClient);
    expect(overflow).toBe("ellipsis");
    expect(tailRight).toBeLessThanOrEqual(cellRight);
    expect(await cell.locator(".id-tail").textContent()).toBe("merge_0001");
    await noHorizontalScroll();
  });

  it("answers nothing without the token, to a foreign Host, or to a write", async () => {
    const base = viewer.url.replace(/\?.*$/, "");
    expect((await fetch(`${base}api/index`)).status).toBe(401);
    expect((await fetch(`${base}api/index?token=wrong-token-xxxxxxxx`)).status).toBe(401);
    expect(await statusWithHost(`${base}api/index`, "evil.example")).toBe(403);
    expect((await fetch(`${base}api/index`, { headers: { Authorization: `Bearer ${viewer.token}`, Origin: "https://evil.example" } })).status).toBe(403);
    expect((await fetch(`${base}api/index`, { method: "POST", headers: { Authorization: `Bearer ${viewer.token}` } })).status).toBe(405);
    expect((await fetch(`${base}api/index`, { headers: { Authorization: `Bearer ${viewer.token}` } })).status).toBe(200);
    const html = await fetch(viewer.url);
    expect(html.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
  });
});
