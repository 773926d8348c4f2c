import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Leaderboard, LeaderboardEntry, LeaderboardView } from "../../src/leaderboard/schema.js";
import { RunStore } from "../../src/runs/store.js";
import { gitgood } from "../helpers/cli.js";
import { buildLeaderboardRuns, LLM_MODEL, REPEATS, type LeaderboardRuns } from "./real-runs.js";

/** Debian's chromium; the test never downloads a browser. */
const CHROMIUM = process.env.GITGOOD_CHROMIUM ?? "/usr/bin/chromium";
const noBrowser = !existsSync(CHROMIUM);
const shots = mkdtempSync(path.join(os.tmpdir(), "gitgood-leaderboard-shots-"));

/** What records and run directories may say: markup and script that must show as text. */
const HOSTILE_DIR = `llm<img src=x onerror="window.__pwned=1">`;
const HOSTILE_AGENT = `llm:<script>window.__pwned=2</script>`;
const HOSTILE_REPO = `acme/<img src=x onerror="window.__pwned=3">`;
const hostileId = (id: string) => `<b onmouseover="window.__pwned=4">${id}</b>`;

let lr: LeaderboardRuns;
let board: Leaderboard;
let browser: Browser;
let page: Page;
let easyId = "";
let mediumId = "";
const errors: string[] = [];

beforeAll(async () => {
  if (noBrowser) return;
  lr = await buildLeaderboardRuns({ llm: HOSTILE_DIR });
  // Every run's records name the samples and their repository with markup; the llm's its agent too.
  for (const dir of [lr.baseline, lr.oracle, lr.llm]) {
    const store = RunStore.openExisting(dir);
    store.replaceAll(store.all().map((r) => ({ ...r, sample_id: hostileId(r.sample_id), repository: HOSTILE_REPO, agent: r.agent.startsWith("llm") ? HOSTILE_AGENT : r.agent })));
  }
  const easy = lr.samples.find((s) => s.difficulty === "easy");
  const medium = lr.samples.find((s) => s.difficulty !== "easy");
  if (easy?.sample_type !== "merge" || medium?.sample_type !== "merge") throw new Error("the fixture's merges are not there");
  easyId = hostileId(easy.id);
  mediumId = hostileId(medium.id);
  // The model's cut-off is the easy merge's date: it is possibly contaminated, the later merge is not.
  const models = path.join(lr.root, "models.yaml");
  writeFileSync(models, `${LLM_MODEL}: ${easy.scenario.committed_at ?? ""}\n`);
  const site = path.join(shots, "site");
  const r = await gitgood(["leaderboard", lr.baseline, lr.oracle, lr.llm, "--out", site, "--models", models]);
  if (r.code !== 0) throw new Error(r.stderr);
  board = JSON.parse(readFileSync(path.join(site, "leaderboard.json"), "utf8")) as Leaderboard;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
  page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
  // A script error, or anything the page's Content-Security-Policy refused, fails the test.
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await page.goto(`file://${path.join(site, "index.html")}`);
  await page.waitForSelector("#board-table", { state: "attached" });
}, 300_000);
afterAll(async () => {
  await browser?.close();
  lr?.cleanup();
  console.log(`leaderboard site and screenshots in ${shots}`);
});

/* The page's formats, as the reader sees them. */
const pct = (v: number | null) => (v === null ? "–" : `${v.toFixed(2)}%`);
const money = (x: number) => (x === 0 ? "$0" : x >= 1 ? `$${x.toFixed(2)}` : `$${x.toPrecision(3)}`);
const fixed = (v: number | null, d: number) => (v === null ? "–" : v.toFixed(d));

/** The cells a row of the ranking must show for an entry. */
function expectedCells(e: LeaderboardEntry): string[] {
  const perSolved = e.cost_per_solved
    ? `${money(e.cost_per_solved.usd)} (95% CI ${money(e.cost_per_solved.low)}–${money(e.cost_per_solved.high)})`
    : e.cost_unknown > 0 ? `unknown (${e.cost_unknown} of ${e.attempts} attempts without a known cost)` : e.solved === 0 ? "– (nothing solved)" : "–";
  const p = e.history_probes;
  return [
    e.rank === null ? "–" : String(e.rank),
    e.name,
    e.model ?? "none",
    e.contamination === "no_model" ? "no model" : (e.cutoff ?? "no stated cut-off"),
    `${e.tasks}${e.excluded_tasks > 0 ? ` (${e.excluded_tasks} left out)` : ""}`,
    String(e.attempts),
    pct(e.solve_rate),
    e.standard_error === null ? "–" : `± ${e.standard_error.toFixed(2)} pp`,
    e.pass_at_k ? Object.entries(e.pass_at_k).map(([k, v]) => `pass@${k} ${pct(v)}`).join(" · ") : "–",
    perSolved,
    e.cost_per_attempt_usd !== null ? money(e.cost_per_attempt_usd) : e.cost_unknown > 0 ? `unknown (${e.cost_unknown} of ${e.attempts})` : "–",
    e.tokens_per_attempt === null ? (e.usage_unknown > 0 ? "unknown" : "–") : fixed(e.tokens_per_attempt, 1),
    fixed(e.seconds_per_attempt, 2),
    fixed(e.tool_calls_per_attempt, 2),
    p.rate === null ? "not audited" : `${pct(p.rate)} (${p.probing}/${p.audited}, ${p.probes} probes)`,
    e.pareto ? "yes" : "no",
  ];
}

const cells = async (selector: string): Promise<string[][]> =>
  (await page.evaluate(`Array.from(document.querySelectorAll(${JSON.stringify(`${selector} tbody tr`)})).map((tr) => Array.from(tr.querySelectorAll("td")).map((td) => td.textContent ?? ""))`)) as string[][];

const view = (tasks: "all" | "after_cutoff"): LeaderboardView => {
  const v = board.views.find((x) => x.family === null && x.repository === null && x.tasks === tasks);
  if (!v) throw new Error(`no view ${tasks}`);
  return v;
};

describe.skipIf(noBrowser)("gitgood leaderboard's site in a real browser, from file://", () => {
  it("ranks the three agents' runs with every number of every row (3 repeats each)", async () => {
    const entries = view("all").entries;
    expect(entries.map((e) => e.name).sort()).toEqual(["baseline", "oracle", HOSTILE_DIR].sort());
    const llm = entries.find((e) => e.name === HOSTILE_DIR)!;
    // The easy merge solved in 2 of 3 attempts, the other never: shares 2/3 and 0.
    expect(llm).toMatchObject({ agent: HOSTILE_AGENT, model: LLM_MODEL, tasks: 2, attempts: 2 * REPEATS, k: REPEATS, solve_rate: 33.33, standard_error: 33.33, pass_at_k: { "1": 33.33, "2": 50, "3": 50 } });
    // Solved attempts take one turn (15 tokens, $0.105), the others three ($0.315): measured usage, priced.
    expect(llm.cost_per_attempt_usd).toBeCloseTo((2 * 0.105 + 4 * 0.315) / 6, 6);
    expect(llm.cost_per_solved?.usd).toBeCloseTo((2 * 0.105 + 4 * 0.315) / 2, 6);
    expect(entries.find((e) => e.name === "oracle")).toMatchObject({ solve_rate: 100, cost_per_attempt_usd: 0, pareto: true });
    const shown = await cells("#board-table");
    expect(shown).toEqual(entries.map(expectedCells));
    for (const row of shown) expect(row.join(" ")).not.toMatch(/undefined|NaN|null/);
    await page.screenshot({ path: path.join(shots, "1-ranking.png"), fullPage: true });
  });

  it("draws the cost–solve chart with its axes' units, a legend, and its data as a table", async () => {
    expect(await page.textContent("#view svg .x-label")).toBe("mean cost per attempt (US$, agent and judges)");
    expect(await page.textContent("#view svg .y-label")).toBe("solve rate (% of tasks, mean over repeats)");
    const plotted = view("all").entries.filter((e) => e.solve_rate !== null && e.cost_per_attempt_usd !== null);
    expect(await page.locator("#view svg circle").count()).toBe(plotted.length);
    expect(await page.textContent("#view .legend")).toContain(HOSTILE_DIR);
    expect(await cells("#chart-data")).toEqual(plotted.map((e) => [e.name, money(e.cost_per_attempt_usd!), pct(e.solve_rate), e.pareto ? "yes" : "no"]));
  });

  it("filters to the tasks dated after each model's cut-off, and marks the task the model may have seen", async () => {
    const tasks = await cells("#tasks-table");
    const row = (id: string) => tasks.find((t) => t[0] === id);
    expect(row(easyId)?.[5]).toBe(`possibly contaminated: ${LLM_MODEL}`);
    expect(row(mediumId)?.[5]).toBe("–");
    await page.selectOption("#tasks", "after_cutoff");
    const after = view("after_cutoff").entries;
    expect(after.find((e) => e.name === HOSTILE_DIR)).toMatchObject({ tasks: 1, excluded_tasks: 1, solve_rate: 0 });
    await expect.poll(async () => cells("#board-table")).toEqual(after.map(expectedCells));
    await page.screenshot({ path: path.join(shots, "2-after-cutoff.png"), fullPage: true });
    await page.selectOption("#tasks", "all");
  });

  it("filters by family and repository (the views of one family and one repository here are the whole)", async () => {
    expect(await page.locator("#family option").count()).toBe(board.families.length + 1);
    expect(await page.locator("#repository option").allTextContents()).toEqual(["all repositories", HOSTILE_REPO]);
    await page.selectOption("#repository", HOSTILE_REPO);
    await expect.poll(async () => (await cells("#board-table")).length).toBe(3);
    expect(await cells("#board-table")).toEqual(board.views.find((v) => v.family === null && v.repository === HOSTILE_REPO && v.tasks === "all")!.entries.map(expectedCells));
  });

  it("shows what records say as text: no markup of a run's name, agent, sample or repository runs", async () => {
    expect(await page.evaluate("window.__pwned")).toBeUndefined();
    expect(await page.locator("#view img, #view script, #view b").count()).toBe(0);
    expect(await page.textContent("#runs")).toContain(HOSTILE_AGENT);
    expect(errors).toEqual([]);
  });
});
