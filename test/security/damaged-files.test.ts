import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleToJson, type MergeSample, type Sample } from "../../src/dataset/sample.js";
import { gitgood } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { recordsIn } from "../helpers/mcp.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

let fx: Fixture;
let easy: MergeSample;
let dirs: ReturnType<typeof tempDirs>;
let samplesFile: string;

beforeAll(async () => {
  let samples: Sample[];
  ({ fx, samples } = await buildRunFixture());
  easy = samples.find((s): s is MergeSample => s.sample_type === "merge" && s.difficulty === "easy") as MergeSample;
  dirs = tempDirs();
  samplesFile = `${dirs.out}-samples.jsonl`;
  writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
});
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

describe("a damaged trajectory", () => {
  it("makes gitgood score say so in one line naming the file, and report still reports", async () => {
    const out = dirs.out;
    const r = await gitgood(["run", samplesFile, "--ids", easy.id, "--repo", fx.dir, "--agent", "command", "--command", "cat > /dev/null", "--isolation", "none", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const rel = recordsIn(out)[`${easy.id}.MCR`]?.trajectory ?? "";
    const file = path.join(out, rel);
    writeFileSync(file, '{"scenario": "MCR", "final": {');
    const score = await gitgood(["score", out]);
    expect(score.code).toBe(1);
    expect(score.stderr.trim().split("\n")).toEqual([`gitgood: the trajectory ${file} is damaged (not JSON)`]);
    const report = await gitgood(["report", out, "--html", path.join(out, "page.html")]);
    expect(report.code, report.stderr).toBe(0);
  }, 120_000);
});
