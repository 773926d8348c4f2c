import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleToJson, type Sample } from "../../src/dataset/sample.js";
import { gitgood } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { countGitProcesses } from "../helpers/git-count.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

let fx: Fixture;
let samples: Sample[];
let dirs: ReturnType<typeof tempDirs>;
let samplesFile: string;

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  dirs = tempDirs();
  samplesFile = path.join(fx.scratch("data"), "samples.jsonl");
  writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
});
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

describe("gitgood run --repo", () => {
  it("opens the repository once: the run reads through the handle its check of --repo opened", async () => {
    const out = path.join(fx.scratch("once"), "run");
    const env = { GITGOOD_SANDBOX_ROOT: fx.scratch("sandboxes") };
    const counted = await countGitProcesses(() => gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "baseline", "--limit", "1", "--out", out], { env }));
    expect(counted.result.code, counted.result.stderr).toBe(0);
    // Opening a repository is its probe (`rev-parse`) and its configuration read; a sandbox's own repository is opened without either.
    const probes = counted.commands.filter((c) => c.startsWith("rev-parse --is-bare-repository"));
    expect(probes).toHaveLength(1);
    expect(counted.commands.filter((c) => c.startsWith("config --get-regexp"))).toHaveLength(1);
  }, 120_000);
});
