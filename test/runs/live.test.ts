import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Agent } from "../../src/agents/agent.js";
import type { Sample } from "../../src/dataset/sample.js";
import { runConfig } from "../../src/runs/config.js";
import { LIVE_DIR, livePath, readLiveTurns } from "../../src/runs/live.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

let fx: Fixture;
let samples: Sample[];
let dirs: ReturnType<typeof tempDirs>;

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  dirs = tempDirs();
}, 180_000);
afterAll(() => {
  dirs?.cleanup();
  fx?.remove();
});

describe("a running attempt's live turns", () => {
  it("are appended as they are recorded, and the file goes once the trajectory is written", async () => {
    const sample = samples.find((s) => s.sample_type === "merge");
    if (!sample) throw new Error("the fixture has no merge sample");
    let release = () => undefined as void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // One turn, then the attempt waits until the test lets it go.
    const waiter: Agent = {
      name: "waiter",
      run: async (session) => {
        session.recordModel({ role: "assistant", content: "first turn, still working" });
        await gate;
      },
    };
    const store = RunStore.open(dirs.out, runConfig({ samples: ["test"], agent: waiter.name }, (p) => p));
    const running = runBenchmark({ samples: [sample], spec: { timeout_s: 120, max_turns: 5, scenarios: ["MCR"] }, where: { repo: fx.dir }, agent: waiter, store, jobs: 1, judges: [] });
    const liveDir = path.join(store.dir, LIVE_DIR);
    const liveFiles = () => (existsSync(liveDir) ? readdirSync(liveDir) : []);
    const lines = () => liveFiles().flatMap((f) => readFileSync(path.join(liveDir, f), "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>));
    // A head saying which attempt, then its events so far.
    await expect.poll(() => lines().map((e) => e.type), { timeout: 60_000 }).toEqual([undefined, "context", "model"]);
    expect(lines()[0]).toEqual({ sample_id: sample.id, scenario: "MCR", agent: "waiter" });
    expect(lines()[2]).toMatchObject({ type: "model", message: { content: "first turn, still working" } });
    const [file] = liveFiles();
    expect(readLiveTurns(store.dir, path.basename(file ?? "", ".jsonl"))?.events.map((e) => e.type)).toEqual(["context", "model"]);
    expect(RunStore.read(store.dir).records).toHaveLength(0);

    release();
    const summary = await running;
    const [record] = summary.records;
    expect(summary.records).toHaveLength(1);
    expect(liveFiles()).toEqual([]);
    expect(existsSync(liveDir)).toBe(false);
    // The file was the record's: its name is the key's, as the trajectory's is.
    expect(path.basename(livePath(record?.key ?? ""), ".jsonl")).toBe(path.basename(record?.trajectory ?? "", ".json"));
  }, 180_000);
});
