import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderStaticPage } from "../../src/report/html.js";
import { runConfig } from "../../src/runs/config.js";
import { RESULTS_SCHEMA_VERSION, type ResultRecord } from "../../src/runs/record.js";
import { RunStore } from "../../src/runs/store.js";
import { RunSet } from "../../src/view/data.js";
import { serveViewer, type ViewHandle } from "../../src/view/server.js";

/*
 * Skill profiles and failure labels in the viewer and the static page: a run written in code whose MCR
 * attempts carry labels, one of them under a hostile sample id with a hostile label (a record on disk is
 * agent-controlled: its labels are any strings).
 */

const CHROMIUM = process.env.GITGOOD_CHROMIUM ?? "/usr/bin/chromium";
const noBrowser = !existsSync(CHROMIUM);
const HOSTILE_ID = `evil<img src=x onerror="window.__pwned=1">_00009`;
const HOSTILE_LABEL = `<img src=x onerror="window.__pwned=2">`;

const sample = (id: string) => ({
  id, name: "o/r", default_branch: "main", license: "MIT", stargazers: 1, created_at: "2020-01-01T00:00:00Z", topics: "", programming_language: "Java",
  project_size: "small", difficulty: "easy", sample_type: "merge",
  scenario: { merge_commit_hash: "a".repeat(40), parents: ["b".repeat(40), "c".repeat(40)], number_of_files_with_merge_conflict: 1, total_number_of_merge_conflicts: 1, files_in_merge_conflict: ["f"] },
});

/** id, whether solved, labels. */
const ATTEMPTS: [string, boolean, string[]][] = [
  ["o_r_merge_00001", true, []],
  ["o_r_merge_00002", false, ["conflicts_left"]],
  ["o_r_merge_00003", false, ["markers_left", "region_resolved_differently"]],
  [HOSTILE_ID, false, ["conflicts_left", HOSTILE_LABEL]],
];

let root: string;
let viewer: ViewHandle;
let browser: Browser;
let page: Page;
let staticFile: string;
const errors: string[] = [];

beforeAll(async () => {
  if (noBrowser) return;
  root = mkdtempSync(path.join(os.tmpdir(), "gitgood-view-labels-"));
  const dir = path.join(root, "labelled");
  const store = RunStore.open(dir, runConfig({ samples: ["test"], agent: "llm" }, (p) => p));
  for (const [id, solved, labels] of ATTEMPTS) {
    const key = `${id}.MCR`;
    const rel = store.writeTrajectory(key, { schema_version: RESULTS_SCHEMA_VERSION, sample_id: id, scenario: "MCR", agent: "llm", sample: sample(id), events: [{ type: "context", text: "Resolve it.", at_ms: 0 }], ended_by: "done" });
    const record = {
      schema_version: RESULTS_SCHEMA_VERSION, key, sample_id: id, scenario: "MCR", repository: "o/r", difficulty: "easy", agent: "llm",
      status: "success", solved, verdict: solved ? "solved" : "unsolved", scores: { exact_match: { solved } }, error: null, failure_labels: labels,
      turns: 2, tool_calls: 1, tokens: { prompt: 100, completion: 10 }, cost_usd: null, started_at: "2026-01-01T00:00:00.000Z", duration_ms: 1000,
      trajectory: rel, programming_language: "Java",
    };
    store.append(record as unknown as ResultRecord);
  }
  viewer = await serveViewer({ runs: new RunSet([dir], ["labelled"]), host: "127.0.0.1", port: 0 });
  staticFile = path.join(root, "report.html");
  const { config, records } = RunStore.read(dir);
  writeFileSync(staticFile, renderStaticPage([{ dir, records, agent: config.identity.agent, label: "labelled" }], { title: "labelled", pageDir: root }));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

const cells = (selector: string): Promise<string[][]> =>
  page.evaluate(`Array.from(document.querySelectorAll(${JSON.stringify(selector)})).map((tr) => Array.from(tr.cells).map((c) => c.textContent))`) as Promise<string[][]>;

describe.skipIf(noBrowser)("skill profiles and failure labels in the viewer", () => {
  for (const where of ["served", "static"] as const) {
    const url = (hash: string): string => (where === "served" ? `${viewer.url}${hash}` : `file://${staticFile}${hash}`);

    it(`${where}: shows the skills with their denominators and the label counts, the hostile label as text`, async () => {
      await page.goto(url("#tab=summary"));
      await page.waitForSelector(".skills");
      const tables = page.locator(".skills table");
      expect(await tables.count()).toBe(2);
      expect(await cells(".skills table:nth-of-type(1) tbody tr")).toEqual([["llm", "resolve_conflict", "1 / 4", "25.0%"]]);
      expect(await cells(".skills table:nth-of-type(2) tbody tr")).toEqual([
        ["llm", "conflicts_left", "2"],
        ["llm", HOSTILE_LABEL, "1"],
        ["llm", "markers_left", "1"],
        ["llm", "region_resolved_differently", "1"],
      ]);
      expect(await page.locator("main img").count()).toBe(0);
      expect(await page.evaluate("window.__pwned === undefined")).toBe(true);
    });

    it(`${where}: filters the attempts by failure label, keeps the filter in the address, and shows an attempt's labels`, async () => {
      await page.goto(url("#tab=samples"));
      await page.waitForSelector("#rows");
      await page.selectOption("#filter-label", "conflicts_left");
      expect(await page.textContent("#count")).toBe("2 of 4 attempt(s)");
      const hash = decodeURIComponent((await page.evaluate("location.hash")) as string);
      expect(hash).toContain("f.label=conflicts_left");
      await page.reload();
      await page.waitForSelector("#rows");
      expect(await page.inputValue("#filter-label")).toBe("conflicts_left");
      expect(await page.textContent("#count")).toBe("2 of 4 attempt(s)");
      // The attempt under the hostile id: its labels shown, each a link to the attempts carrying it; nothing it holds ran.
      await page.click(`#rows tr[data-key="${HOSTILE_ID.replace(/"/g, '\\"')}.MCR"]`);
      await page.waitForSelector("#detail p.labels");
      expect(await page.textContent("#attempt-title")).toContain(HOSTILE_ID);
      expect(await page.locator("#detail p.labels a.label").allTextContents()).toEqual(["conflicts_left", HOSTILE_LABEL]);
      await page.locator("#detail p.labels a.label").nth(1).click();
      await expect.poll(async () => page.textContent("#count")).toBe("1 of 4 attempt(s)");
      expect(await page.inputValue("#filter-label")).toBe(HOSTILE_LABEL);
      await page.selectOption("#filter-label", "none");
      expect(await page.textContent("#count")).toBe("1 of 4 attempt(s)");
      expect(await page.locator("main img").count()).toBe(0);
      expect(await page.evaluate("window.__pwned === undefined")).toBe(true);
      expect(errors).toEqual([]);
    });
  }
});
