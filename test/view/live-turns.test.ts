import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Agent } from "../../src/agents/agent.js";
import { runConfig } from "../../src/runs/config.js";
import { runBenchmark, type RunSummary } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import { RunSet } from "../../src/view/data.js";
import { serveViewer } from "../../src/view/server.js";
import { noBrowser, runInBrowser } from "../helpers/run-in-browser.js";

const shots = process.env.GITGOOD_VIEW_SHOTS ?? mkdtempSync(path.join(os.tmpdir(), "gitgood-view-live-"));
const b = runInBrowser();

const detailText = () => b.page.locator("#detail").textContent();

describe.skipIf(noBrowser)("a running attempt's turns in the viewer", () => {
  it("shows the first turn while the attempt runs, then the finished attempt", async () => {
    const sample = b.samples.find((s) => s.sample_type === "merge");
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
    const store = RunStore.open(b.dirs.out, runConfig({ samples: ["test"], agent: waiter.name }, (p) => p));
    const running: Promise<RunSummary> = runBenchmark({ samples: [sample], spec: { timeout_s: 120, max_turns: 5, scenarios: ["MCR"] }, where: { repo: b.fx.dir }, agent: waiter, store, jobs: 1, judges: [] });

    b.viewer = await serveViewer({ runs: new RunSet([store.dir], ["live"]), host: "127.0.0.1", port: 0 });
    await b.page.goto(b.viewer.url);
    const link = b.page.locator('#summary .running[data-run="0"] a');
    await expect.poll(() => link.count(), { timeout: 60_000 }).toBe(1);
    await link.click();
    await expect.poll(detailText, { timeout: 30_000 }).toContain("first turn, still working");
    expect(await detailText()).toContain("running: its turns so far");
    expect(RunStore.read(store.dir).records).toHaveLength(0);
    await b.page.screenshot({ path: path.join(shots, "live-turns-running.png"), fullPage: true });

    release();
    const summary = await running;
    expect(summary.records).toHaveLength(1);
    // The page reads the attempt again while "live" is on: the finished attempt replaces the running one.
    await expect.poll(detailText, { timeout: 30_000 }).toContain("second turn, done");
    expect(await detailText()).toContain("first turn, still working");
    expect(await detailText()).not.toContain("running: its turns so far");
    expect(await b.page.locator("#detail h3", { hasText: "Outcome" }).count()).toBe(1);
  }, 180_000);
});
