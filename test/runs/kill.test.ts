import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleToJson, type Sample } from "../../src/dataset/sample.js";
import { bwrapUnavailable } from "../../src/sandbox/isolation.js";
import { BIN } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { killAllWith, leftWith, processesWith, sleepMarker, waitFor } from "../helpers/processes.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

// `gitgood run` runs as its own process here, through the built CLI: npm run build first.
const noBwrap = bwrapUnavailable();
if (noBwrap) process.stderr.write(`kill tests in namespace isolation skipped: ${noBwrap}\n`);

let fx: Fixture;
let merge: Sample;
let dirs: ReturnType<typeof tempDirs>;
let samplesFile: string;

beforeAll(async () => {
  let samples: Sample[];
  ({ fx, samples } = await buildRunFixture());
  merge = samples.find((s) => s.sample_type === "merge" && s.difficulty === "easy") as Sample;
  dirs = tempDirs();
  samplesFile = `${dirs.out}-samples.jsonl`;
  writeFileSync(samplesFile, `${sampleToJson(merge)}\n`);
});
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

describe("killing gitgood run", () => {
  it.for([
    ["namespace", "SIGKILL", noBwrap !== null],
    ["namespace", "SIGINT", noBwrap !== null],
    ["none", "SIGKILL", false],
    ["none", "SIGINT", false],
  ] as const)("leaves no agent process behind (isolation %s, %s)", async ([mode, signal, skip], ctx) => {
    if (skip) ctx.skip();
    const marker = sleepMarker();
    // The agent sleeps, and so does a grandchild in a shell of its own.
    const command = `sh -c 'sleep ${marker}1' & sleep ${marker}2; wait`;
    const out = `${dirs.out}-${mode}-${signal}`;
    const child = spawn(
      process.execPath,
      [BIN, "run", samplesFile, "--repo", fx.dir, "--agent", "command", "--command", command, "--isolation", mode, "--timeout", "600", "--out", out],
      { env: { ...process.env }, stdio: "ignore" },
    );
    const closed = new Promise<NodeJS.Signals | number | null>((resolve) => child.on("close", (code, sig) => resolve(sig ?? code)));
    try {
      await waitFor(() => processesWith(marker).filter((pid) => pid !== child.pid).length >= 2, "the agent and its grandchild run");
      child.kill(signal);
      const ended = await closed;
      expect(ended).toBe(signal === "SIGKILL" ? "SIGKILL" : 130);
      expect(await leftWith(marker)).toEqual([]);
    } finally {
      killAllWith(marker);
      child.kill("SIGKILL");
    }
  });
});
