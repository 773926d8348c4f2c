import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderStaticPage } from "../../src/report/html.js";
import { RunStore } from "../../src/runs/store.js";
import { RunSet } from "../../src/view/data.js";
import { serveViewer, type ViewHandle } from "../../src/view/server.js";
import { buildViewRuns, type ViewRuns } from "./view-runs.js";

/** Debian's chromium; the test never downloads a browser. */
const CHROMIUM = process.env.GITGOOD_CHROMIUM ?? "/usr/bin/chromium";
const noBrowser = !existsSync(CHROMIUM);
const shots = process.env.GITGOOD_VIEW_SHOTS ?? mkdtempSync(path.join(os.tmpdir(), "gitgood-view-views-"));

let runs: ViewRuns;
let viewer: ViewHandle;
let browser: Browser;
let page: Page;
let staticFile: string;
const errors: string[] = [];

beforeAll(async () => {
  if (noBrowser) return;
  runs = buildViewRuns();
  viewer = await serveViewer({ runs: new RunSet([runs.priced, runs.unpriced], ["priced", "unpriced"]), host: "127.0.0.1", port: 0 });
  staticFile = path.join(runs.root, "report.html");
  const formatRuns = [runs.priced, runs.unpriced].map((dir, i) => {
    const { config, records } = RunStore.read(dir);
    return { dir, records, agent: config.identity.agent, label: ["priced", "unpriced"][i] ?? "" };
  });
  writeFileSync(staticFile, renderStaticPage(formatRuns, { title: "priced · unpriced", pageDir: runs.root }));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  // A script error, or anything the page's Content-Security-Policy refused, fails the tests.
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await page.goto(viewer.url);
  await page.waitForSelector("#count", { state: "attached" });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  runs?.cleanup();
  console.log(`viewer screenshots in ${shots}`);
});

const hash = async (): Promise<string> => decodeURIComponent((await page.evaluate("location.hash")) as string);
const shot = (name: string) => page.screenshot({ path: path.join(shots, name), fullPage: true });

describe.skipIf(noBrowser)("the viewer's views in a real browser", () => {
  it("keeps the view in the address: tab, filter, attempt and its view survive a reload and open from a pasted link; the token stays out", async () => {
    await page.click("nav button[data-tab=samples]");
    await page.selectOption("#filter-verdict", "error");
    await page.click(`#rows tr[data-run="0"][data-key="${runs.richKey}"]`);
    await page.waitForSelector("#attempt-title");
    await page.click("button.view-pick[data-view=timeline]");
    await page.waitForSelector("#timeline");
    const h = await hash();
    expect(h).toContain("tab=samples");
    expect(h).toContain("f.verdict=error");
    expect(h).toContain(`key=${runs.richKey}`);
    expect(h).toContain("view=timeline");
    // The token is where it was (the query), in no fragment and in no link the page made.
    expect(h).not.toContain(viewer.token);
    const hrefs = (await page.evaluate(`Array.from(document.querySelectorAll("[href]")).map((a) => a.getAttribute("href"))`)) as string[];
    expect(hrefs.filter((x) => x.includes(viewer.token))).toEqual([]);
    const link = page.url();
    await page.reload();
    await page.waitForSelector("#timeline");
    expect(await page.textContent("#attempt-title")).toContain(runs.ids[0]);
    expect(await page.inputValue("#filter-verdict")).toBe("error");
    expect(await page.locator("section#samples").isVisible()).toBe(true);
    const other = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await other.goto(link);
    await other.waitForSelector("#timeline");
    expect(await other.textContent("#attempt-title")).toContain(runs.ids[0]);
    await other.close();
    // The comparison's choices too; back returns to the attempt.
    await page.click("nav button[data-tab=compare]");
    await page.check("#differs");
    expect(await hash()).toContain("differs=1");
    await page.reload();
    await page.waitForSelector("#matrix");
    expect(await page.isChecked("#differs")).toBe(true);
    await page.goBack();
    await page.waitForSelector("#timeline");
    expect(await page.textContent("#attempt-title")).toContain(runs.ids[0]);
  });

  it("shows a tool call's path as a heading and its code as a code block, a diff coloured by line, and hostile text as text", async () => {
    await page.goto(`${viewer.url}#tab=samples&run=0&key=${encodeURIComponent(runs.richKey)}`);
    await page.waitForSelector("#attempt-title");
    expect(await page.textContent("#detail .call .args .path")).toBe("src/Counter.java");
    const code = (await page.textContent("#detail .call pre.arg-code")) ?? "";
    expect(code).toContain("\n\t\t@Setup\n");
    expect(code).toContain("<script>window.__pwned = 1</script>");
    expect(await page.locator("#detail .call pre.diff .d-add").count()).toBeGreaterThan(0);
    expect(await page.locator("#detail .call pre.diff .d-del").first().textContent()).toBe("-  int n;");
    expect(await page.locator("#detail .call pre.diff .d-file").first().textContent()).toMatch(/^diff --git a\/src\/Counter.java/);
    const [addColor, delColor] = (await page.evaluate(`[getComputedStyle(document.querySelector("#detail pre.diff .d-add")).color, getComputedStyle(document.querySelector("#detail pre.diff .d-del")).color]`)) as string[];
    expect(addColor).not.toBe(delColor);
    // Nothing the agent wrote became an element or ran.
    expect(await page.locator("#detail img, #detail script, #detail pre b").count()).toBe(0);
    expect(await page.evaluate("window.__pwned === undefined")).toBe(true);
    await shot("code.png");
  });

  it("lists an attempt's events in order with their times: model calls with tokens, tool calls, results, the limit hit and the error marked, long outputs folded", async () => {
    await page.click("button.view-pick[data-view=timeline]");
    await page.waitForSelector("#timeline");
    const kinds = (await page.evaluate(`Array.from(document.querySelectorAll("#timeline li")).map((li) => li.dataset.kind)`)) as string[];
    expect(kinds).toEqual(["start", "task", "model", "tool", "result", "model", "tool", "error", "error", "model", "tool", "result", "end", "error", "score"]);
    const times = (await page.evaluate(`Array.from(document.querySelectorAll("#timeline li[data-at]")).map((li) => Number(li.dataset.at))`)) as number[];
    expect(times.length).toBeGreaterThan(8);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    const text = (await page.textContent("#timeline")) ?? "";
    expect(text).toMatch(/\+1\.2 s\s*model\s*model call 1 · 900 prompt \+ 40 completion tokens · latency 1\.2 s/);
    expect(text).toContain("1000 prompt + 20 completion tokens, cache hit");
    expect(text).toContain("sandbox: the memory limit was hit");
    expect(text).toContain("ended with MODEL_ERROR");
    const bg = (await page.evaluate(`getComputedStyle(document.querySelector("#timeline li.ev-error")).backgroundColor`)) as string;
    expect(bg).not.toBe((await page.evaluate(`getComputedStyle(document.querySelector("#timeline li.ev-model")).backgroundColor`)) as string);
    // The 300-line output is folded; the short diff is open.
    const folds = (await page.evaluate(`Array.from(document.querySelectorAll("#timeline details.fold")).map((d) => [d.textContent.includes("line 299"), d.open])`)) as [boolean, boolean][];
    expect(folds.filter(([long]) => long)).toEqual([[true, false]]);
    expect(folds.some(([long, open]) => !long && open)).toBe(true);
    await shot("timeline.png");
  });

  it("plots a priced and an unpriced run with honest units, a legend, visible 0 % bars, the data one click away, no empty panel", async () => {
    await page.click("nav button[data-tab=summary]");
    const cost = page.locator('.plot[data-plot="cost"]');
    expect(await cost.locator("svg .x-label").textContent()).toBe("tokens (prompt + completion)");
    // No dollar value on a token axis.
    expect(await cost.locator("svg").textContent()).not.toContain("$");
    expect(await cost.locator(".plot-note").textContent()).toContain("no prices for unpriced");
    expect(await cost.locator(".legend").textContent()).toBe("pricedunpriced");
    expect(await page.locator('.plot[data-plot="pass-at-k"]').count()).toBe(0);
    expect(await page.textContent("#empty-plots")).toMatch(/pass@k/);
    const diff = page.locator('.plot[data-plot="difficulty"]');
    expect(await diff.locator(".legend").textContent()).toBe("pricedunpriced");
    const zero = (await page.evaluate(`Array.from(document.querySelectorAll('.plot[data-plot="difficulty"] rect.bar')).filter((r) => r.dataset.value === "0").map((r) => r.getBoundingClientRect().height)`)) as number[];
    expect(zero.length).toBe(2);
    for (const h of zero) expect(h).toBeGreaterThanOrEqual(2);
    expect(await cost.locator("table.plot-data").isVisible()).toBe(false);
    await cost.locator("details.data summary").click();
    expect(await cost.locator("table.plot-data").isVisible()).toBe(true);
    expect(await cost.locator("table.plot-data").textContent()).toContain("no prices");
    await shot("summary.png");
  });

  it("shows in the sample list the part of the ids that differs, and keeps a cost on one line", async () => {
    await page.goto(`${viewer.url}#tab=samples`);
    await page.waitForSelector("#rows");
    const shownIds = (await page.evaluate(`Array.from(document.querySelectorAll("#rows td.id")).map((td) => td.innerText)`)) as string[];
    expect(shownIds.length).toBe(12);
    for (const s of shownIds) {
      expect(s).not.toContain("Netflix_Hystrix");
      expect(s).toMatch(/0000\d$/);
    }
    await page.setViewportSize({ width: 700, height: 900 });
    const lines = (await page.evaluate(`Array.from(document.querySelectorAll("#rows td.num")).map((td) => td.getClientRects().length && td.innerText.split("\\n").length)`)) as number[];
    expect(lines.every((n) => n === 1)).toBe(true);
    const heights = (await page.evaluate(`Array.from(document.querySelectorAll("#rows td.num")).map((td) => td.scrollWidth <= td.clientWidth + 1 || getComputedStyle(td).whiteSpace === "nowrap")`)) as boolean[];
    expect(heights.every(Boolean)).toBe(true);
    await page.setViewportSize({ width: 1400, height: 900 });
    await shot("samples.png");
  });

  it("puts one sample of two runs side by side, from the Compare matrix, and keeps it on reload", async () => {
    await page.goto(`${viewer.url}#tab=compare`);
    await page.waitForSelector("#matrix");
    await page.locator("#matrix tbody tr").filter({ hasText: runs.ids[2]! }).locator("a.side-link").click();
    await page.waitForSelector("#side-title");
    await expect.poll(async () => page.locator(".side-col .v-solved, .side-col .v-unsolved").count()).toBe(2);
    expect(await page.locator(".side-col h3").first().textContent()).toBe("priced");
    expect(await page.locator(".side-col").nth(1).locator("h3").first().textContent()).toBe("unpriced");
    expect(await page.locator(".side-col").nth(0).locator(".v-solved").count()).toBe(1);
    expect(await page.locator(".side-col").nth(1).locator(".v-unsolved").count()).toBe(1);
    expect(await hash()).toContain("runs=0,1");
    expect(await page.textContent("#side")).not.toMatch(/\bnull\b/);
    await page.reload();
    await page.waitForSelector("#side-title");
    expect(await page.textContent("#side-title")).toContain(runs.ids[2]);
    await expect.poll(async () => page.locator(".side-col .v-solved, .side-col .v-unsolved").count()).toBe(2);
    await shot("side.png");
  });

  it("keeps the view in the address in the static report --html page too", async () => {
    await page.goto(`file://${staticFile}#tab=samples&run=0&key=${encodeURIComponent(runs.richKey)}&view=timeline`);
    await page.waitForSelector("#timeline");
    expect(await page.textContent("#attempt-title")).toContain(runs.ids[0]);
    await page.click("nav button[data-tab=compare]");
    await page.check("#differs");
    expect(await hash()).toContain("differs=1");
    await page.reload();
    await page.waitForSelector("#matrix");
    expect(await page.isChecked("#differs")).toBe(true);
    expect(errors).toEqual([]);
  });
});
