import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRun } from "../../src/export/attempts.js";
import { renderStaticPage } from "../../src/report/html.js";
import { RunStore } from "../../src/runs/store.js";
import { buildExportRuns, type ExportFixture } from "../export/runs.js";

/** Debian's chromium; the test never downloads a browser. */
const CHROMIUM = process.env.GITGOOD_CHROMIUM ?? "/usr/bin/chromium";
const noBrowser = !existsSync(CHROMIUM);
const shots = mkdtempSync(path.join(os.tmpdir(), "gitgood-report-html-shots-"));

let ex: ExportFixture;
let browser: Browser;
let page: Page;
const errors: string[] = [];

beforeAll(async () => {
  if (noBrowser) return;
  ex = await buildExportRuns();
  const runs = [ex.llmRun, ex.oracleRun].map((dir, i) => {
    const { config, records } = RunStore.read(dir);
    return { dir, records, agent: config.identity.agent, label: ["llm", "oracle"][i] ?? "" };
  });
  const file = path.join(shots, "report.html");
  writeFileSync(file, renderStaticPage(runs, { title: "gitgood comparison: llm · oracle", pageDir: shots }));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  // A script error, or anything the page's Content-Security-Policy refused, fails the test.
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await page.goto(`file://${file}`);
  await page.waitForSelector("#count", { state: "attached" });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  ex?.cleanup();
  console.log(`static report screenshots in ${shots}`);
});

const visibleRows = async (): Promise<string[][]> =>
  (await page.evaluate(`Array.from(document.querySelectorAll("#rows tbody tr")).map((tr) => Array.from(tr.querySelectorAll("td")).map((td) => td.textContent ?? ""))`)) as string[][];

async function noHorizontalScroll(): Promise<void> {
  const [scroll, client] = (await page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")) as [number, number];
  expect(scroll).toBeLessThanOrEqual(client);
}

describe.skipIf(noBrowser)("the static report (report --html) in a real browser, with no server", () => {
  it("shows the viewer's summary with its plots, and no live control", async () => {
    expect(await page.locator("#summary h2").first().textContent()).toMatch(/llm/);
    // The runs have no repeats: no pass@k panel, a line saying so.
    expect(await page.locator("#summary svg").count()).toBe(2);
    expect(await page.textContent("#empty-plots")).toMatch(/pass@k/);
    expect(await page.locator("#live").count()).toBe(0);
    await noHorizontalScroll();
    await page.screenshot({ path: path.join(shots, "1-summary.png"), fullPage: true });
  });

  it("searches by id and filters by verdict and language", async () => {
    await page.click("nav button[data-tab=samples]");
    const easy = readRun(ex.llmRun).records[0]!;
    await page.fill("#search", easy.sample_id);
    await expect.poll(async () => (await visibleRows()).length).toBe(2);
    await page.fill("#search", "");
    const oracle = readRun(ex.oracleRun).records;
    await page.selectOption("#filter-verdict", "unjudged");
    await expect.poll(async () => (await visibleRows()).length).toBe(oracle.filter((r) => r.verdict === "unjudged").length);
    for (const row of await visibleRows()) expect(row[3]).toMatch(/^unjudged/);
    await page.selectOption("#filter-verdict", "");
    await page.selectOption("#filter-scenario", "MCR");
    const mcr = [ex.llmRun, ex.oracleRun].flatMap((d) => readRun(d).records).filter((r) => r.scenario === "MCR").length;
    await expect.poll(async () => (await visibleRows()).length).toBe(mcr);
    await page.selectOption("#filter-scenario", "");
  });

  it("opens a transcript decoded from the page, with the family's view of the outcome and the timings", async () => {
    const key = readRun(ex.llmRun).records[0]!.key;
    await page.click(`#rows tr[data-run="0"][data-key="${key}"]`);
    await page.waitForSelector("#attempt-title");
    const detail = (await page.textContent("#detail")) ?? "";
    expect(detail).toMatch(/turn 1 · 10 prompt \+ 5 completion tokens/);
    expect(detail).toContain('"context_window_size": 2');
    expect(detail).toMatch(/malformed arguments for resolve_current_merge_conflict_with/);
    // The MCR view: the conflict regions and the resolution against the recorded merge.
    expect(detail).toContain("Against the recorded merge");
    expect(detail).toContain("Identical to the ground truth.");
    expect(detail).toMatch(/Conflict regions \(\d+\)/);
    expect(detail).toContain("Timings");
    const link = await page.getAttribute("#detail a.trajectory-link", "href");
    expect(link && existsSync(path.resolve(shots, decodeURIComponent(link)))).toBe(true);
    await noHorizontalScroll();
    await page.screenshot({ path: path.join(shots, "2-transcript.png"), fullPage: true });
  });

  it("opens an IR attempt: expected and produced history side by side, the checks, and the judges said not to have run", async () => {
    const ir = readRun(ex.oracleRun).records.find((r) => r.scenario === "IR")!;
    await page.click(`#rows tr[data-run="1"][data-key="${ir.key}"]`);
    await expect.poll(async () => (await page.textContent("#attempt-title")) ?? "").toContain(ir.sample_id);
    const detail = (await page.textContent("#detail")) ?? "";
    expect(detail).toMatch(/Expected: the original chain \(\d+\)/);
    expect(detail).toMatch(/Produced by the agent \(\d+\)/);
    expect(detail).toContain("History checks");
    expect(detail).toContain("No judge looked at this history");
  });

  it("compares the runs: 'disagree' and 'solved here, not there' filters on the matrix", async () => {
    await page.click("nav button[data-tab=compare]");
    const llm = readRun(ex.llmRun).records;
    const oracle = readRun(ex.oracleRun).records;
    const both = oracle.filter((r) => llm.some((x) => x.sample_id === r.sample_id && x.scenario === r.scenario));
    const disagree = both.filter((r) => llm.find((x) => x.sample_id === r.sample_id && x.scenario === r.scenario)?.verdict !== r.verdict).length;
    await page.check("#differs");
    await expect.poll(async () => page.locator("#matrix tbody tr").count()).toBe(disagree);
    await page.uncheck("#differs");
    await page.selectOption("#cmp-a", "1");
    await page.selectOption("#cmp-b", "0");
    await page.check("#only");
    const solvedOnlyInOracle = oracle.filter((r) => r.solved === true && !llm.some((x) => x.sample_id === r.sample_id && x.scenario === r.scenario && x.solved === true)).length;
    await expect.poll(async () => page.locator("#matrix tbody tr").count()).toBe(solvedOnlyInOracle);
    await noHorizontalScroll();
    await page.screenshot({ path: path.join(shots, "3-compare.png"), fullPage: true });
    expect(errors).toEqual([]);
  });
});
