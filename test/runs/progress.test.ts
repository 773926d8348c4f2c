import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PROGRESS_FILE, ProgressLog, readProgress } from "../../src/runs/progress.js";

const root = mkdtempSync(path.join(os.tmpdir(), "gitgood-progress-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const dir = (): string => {
  const d = path.join(root, String(n++));
  mkdirSync(d);
  return d;
};

describe("a run's progress file", () => {
  it("is absent for a run that never wrote one: no progress, not zero", () => {
    expect(readProgress(dir(), [])).toBeNull();
  });

  it("counts the latest plan, and as running the attempts started since that have no record, or one older than their start (a retried error)", () => {
    const d = dir();
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const lines = [
      { plan: 9, at: at(0) },
      { start: "old", at: at(1) },
      { plan: 4, at: at(10) },
      { start: "a", at: at(11) },
      { start: "b", at: at(12) },
      { start: "retried", at: at(13) },
    ];
    writeFileSync(path.join(d, PROGRESS_FILE), `${lines.map((l) => JSON.stringify(l)).join("\n")}\nnot json\n{"start": 3, "at": "x"}\n[1]\n{"plan": -1, "at": "x"}\n`);
    const records = [
      { key: "resumed", started_at: at(5) },
      { key: "a", started_at: at(11) },
      { key: "retried", started_at: at(2) },
    ];
    // b and retried are running; a finished; resumed finished in an earlier invocation; one waits.
    expect(readProgress(d, records)).toEqual({ planned: 4, done: 2, running: 2, running_keys: ["b", "retried"] });
  });

  it("is what the log writes: a plan, then a line per start", () => {
    const d = dir();
    const log = new ProgressLog(d);
    log.plan(2);
    log.started("s1.MCR");
    expect(readProgress(d, [])).toEqual({ planned: 2, done: 0, running: 1, running_keys: ["s1.MCR"] });
  });
});
