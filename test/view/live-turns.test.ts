import { existsSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Agent } from "../../src/agents/agent.js";
import type { Sample } from "../../src/dataset/sample.js";
import { runConfig } from "../../src/runs/config.js";
import { runBenchmark, type RunSummary } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import { RunSet } from "../../src/view/data.js";
import { serveViewer, type ViewHandle } from "../../src/view/server.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

/** Debian's chromium; the test never downloads a browser. */
const CHROMIUM = process.env.GITGOOD_CHROMIUM ?? "/usr/bin/chromium";
const noBrowser = !existsSync(CHROMIUM);
const shots = process.env.GITGOOD_VIEW_SHOTS ?? mkdtempSync(path.join(os.tmpdir(), "gitgood-view-live-"));

let fx: Fixture;
let samples: Sample[];
let dirs: ReturnType<typeof tempDirs>;
let viewer: ViewHandle;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (noBrowser) return;
  ({ fx, samples } = await buildRunFixture());
  dirs = tempDirs();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  dirs?.cleanup();
  fx?.remove();
});

const detailText = () => page.locator("#detail").textContent();

describe.skipIf(noBrowser)("a running attempt's turns in the viewer", () => {
  it("shows the first turn while the attempt runs, then the finished attempt", async () => {
    const sample = samples.find((s) => s.sample_type === "merge");
    if (!sample) throw new Error("the fixture has no merge sample");
    let release = () => undefined as void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // One turn, then the attempt waits until the test lets it go (after the first turn, a second).
    const waiter: Agent = {
      name: "waiter",
      run: async (session) => {
        session.recordModel({ role: "assistant", content: "first turn, still working" });
        await gate;
        session.recordModel({ role: "assistant", content: "second turn, done" });
      },
    };
    const store = RunStore.open(dirs.out, runConfig({ samples: ["test"], agent: waiter.name }, (p) => p));
    const running: Promise<RunSummary> = runBenchmark({ samples: [sample], scenarios: ["MCR"], where: { repo: fx.dir }, agent: waiter, store, jobs: 1, timeoutSeconds: 120, maxTurns: 5, judges: [] });

    viewer = await serveViewer({ runs: new RunSet([store.dir], ["live"]), host: "127.0.0.1", port: 0 });
    await page.goto(viewer.url);
    const link = page.locator('#summary .running[data-run="0"] a');
    await expect.poll(() => link.count(), { timeout: 60_000 }).toBe(1);
    await link.click();
    await expect.poll(detailText, { timeout: 30_000 }).toContain("first turn, still working");
    expect(await detailText()).toContain("running: its turns so far");
    expect(RunStore.read(store.dir).records).toHaveLength(0);
    await page.screenshot({ path: path.join(shots, "live-turns-running.png"), fullPage: true });

    release();
    const summary = await running;
    expect(summary.records).toHaveLength(1);
    // The page reads the attempt again while "live" is on: the finished attempt replaces the running one.
    await expect.poll(detailText, { timeout: 30_000 }).toContain("second turn, done");
    expect(await detailText()).toContain("first turn, still working");
    expect(await detailText()).not.toContain("running: its turns so far");
    expect(await page.locator("#detail h3", { hasText: "Outcome" }).count()).toBe(1);
  }, 180_000);
});
