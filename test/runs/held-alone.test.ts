import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Agent, Session } from "../../src/agents/agent.js";
import type { Sample } from "../../src/dataset/sample.js";
import { runConfig } from "../../src/runs/config.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import type { LiveScenario } from "../../src/scenarios/types.js";
import { setupScenario } from "../../src/scenarios/index.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

/**
 * A run's attempt holds its sandbox alone: its tool calls take no lock file between processes and write
 * no state for a later process (both are for `gitgood tool` calls on a kept sandbox), so parallel
 * attempts do no synchronous file work per call on the event loop they share.
 */
let fx: Fixture;
let merge: Sample;
let dirs: ReturnType<typeof tempDirs>;
const reason = "test";

beforeAll(async () => {
  const built = await buildRunFixture();
  fx = built.fx;
  merge = built.samples.find((s) => s.sample_type === "merge") as Sample;
  dirs = tempDirs();
});
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

/** A file where the call lock goes that is not a lock gitgood wrote: a call that takes the lock is refused. */
function blockLock(s: LiveScenario): void {
  writeFileSync(s.sandbox.privatePath("call.lock"), "not a lock\n");
}

describe("a sandbox held alone", () => {
  it("a shared sandbox's call takes the lock and saves the state; one held alone does neither", async () => {
    const shared = await setupScenario(merge, fx.dir, { scenario: "MCR" });
    const alone = await setupScenario(merge, fx.dir, { scenario: "MCR" });
    try {
      blockLock(shared);
      await expect(shared.callTool("view_current_merge_conflict_with", { context_window_size: 1, reason })).rejects.toMatchObject({ code: "BUSY" });

      alone.sandbox.holdAlone();
      blockLock(alone);
      const state = alone.sandbox.privatePath("state.json");
      const before = readFileSync(state, "utf8");
      const viewed = await alone.callTool("view_current_merge_conflict_with", { context_window_size: 1, reason });
      expect(viewed.ok).toBe(true);
      const content = viewed.output.includes("io3 = 'topic'") ? "io3 = 'topic'\n" : "w12\r\n";
      const resolved = await alone.callTool("resolve_current_merge_conflict_with", { content, reason });
      expect(resolved.ok).toBe(true);
      expect(readFileSync(state, "utf8")).toBe(before);
    } finally {
      shared.close();
      alone.close();
    }
  });

  it("the runner holds every attempt's sandbox alone", async () => {
    const seen: boolean[] = [];
    const agent: Agent = {
      name: "probe",
      workTree: "tools",
      run: async (session: Session) => {
        seen.push((session as unknown as { scenario: LiveScenario }).scenario.sandbox.isHeldAlone);
        await session.call("view_current_merge_conflict_with", { context_window_size: 1, reason });
      },
    };
    const store = RunStore.open(`${dirs.out}-alone`, runConfig({ samples: ["test"], agent: agent.name }, (p) => p));
    const result = await runBenchmark({ samples: [merge], spec: { timeout_s: 60, max_turns: 5, scenarios: ["MCR"] }, where: { repo: fx.dir }, agent, store, jobs: 1, judges: [] });
    expect(result.records.map((r) => r.status)).toEqual(["success"]);
    expect(seen).toEqual([true]);
  });
});
