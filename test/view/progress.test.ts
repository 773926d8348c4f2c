import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Agent } from "../../src/agents/agent.js";
import { runConfig } from "../../src/runs/config.js";
import { PROGRESS_FILE } from "../../src/runs/progress.js";
import { runBenchmark, type RunSummary } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import { RunSet } from "../../src/view/data.js";
import { serveViewer } from "../../src/view/server.js";
import { noBrowser, runInBrowser } from "../helpers/run-in-browser.js";

const shots = process.env.GITGOOD_VIEW_SHOTS ?? mkdtempSync(path.join(os.tmpdir(), "gitgood-view-progress-"));
const b = runInBrowser();

const progressText = () => b.page.locator('#summary .progress[data-run="0"]').textContent();

describe.skipIf(noBrowser)("a running run's progress in the viewer", () => {
  it("shows attempts planned and running before the first one finishes, then done as they finish", async () => {
    const merges = b.samples.filter((s) => s.sample_type === "merge");
    expect(merges).toHaveLength(2);
    // The first attempt waits until the test lets it go: until then nothing has finished.
    let release = () => undefined as void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const waiter: Agent = { name: "waiter", run: () => gate };
    const store = RunStore.open(b.dirs.out, runConfig({ samples: ["test"], agent: waiter.name }, (p) => p));
    const running: Promise<RunSummary> = runBenchmark({ samples: merges, spec: { timeout_s: 120, max_turns: 5, scenarios: ["MCR"] }, where: { repo: b.fx.dir }, agent: waiter, store, jobs: 1, judges: [] });
    const startLines = () => (existsSync(path.join(store.dir, PROGRESS_FILE)) ? readFileSync(path.join(store.dir, PROGRESS_FILE), "utf8").split("\n").filter((l) => l.includes('"start"')).length : 0);
    await expect.poll(startLines, { timeout: 60_000 }).toBe(1);
    expect(RunStore.read(store.dir).records).toHaveLength(0);

    b.viewer = await serveViewer({ runs: new RunSet([store.dir], ["waiting"]), host: "127.0.0.1", port: 0 });
    await b.page.goto(b.viewer.url);
    await expect.poll(progressText, { timeout: 30_000 }).toBe(" 0 done, 1 running, 1 waiting, of 2 planned");
    expect(await b.page.locator('#summary .progress[data-run="0"] progress').getAttribute("value")).toBe("0");
    expect(await b.page.locator("#status").textContent()).toContain("waiting: 0 done, 1 running, 1 waiting, of 2 planned");
    await b.page.screenshot({ path: path.join(shots, "progress-running.png"), fullPage: true });

    release();
    const summary = await running;
    expect(summary.records).toHaveLength(2);
    // The page reads the run again while "live" is on: the bar fills without a reload.
    await expect.poll(progressText, { timeout: 30_000 }).toBe(" 2 done, 0 running, 0 waiting, of 2 planned");
  }, 180_000);
});
