import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleToJson, type Sample } from "../../src/dataset/sample.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { bwrapUnavailable } from "../../src/sandbox/isolation.js";
import { gitgood } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture } from "../helpers/runs.js";

const noBwrap = bwrapUnavailable();

let fx: Fixture;
let samples: Sample[];
let samplesFile: string;
beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  samplesFile = path.join(fx.scratch("data"), "samples.jsonl");
  writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
});
afterAll(() => fx?.remove());

describe.skipIf(noBwrap !== null)("a run whose agent runs into a jail limit", () => {
  it("records LIMIT_EXCEEDED naming the limit as the agent's failure, goes on and finishes; run.json records the limits", { timeout: 180_000 }, async () => {
    const ids = samples
      .filter((s) => s.sample_type === "merge")
      .map((s) => s.id)
      .slice(0, 2);
    const out = path.join(fx.scratch("limits"), "run");
    const bomb = "bomb() { bomb | bomb & }; bomb; sleep 100";
    const r = await gitgood(
      ["run", samplesFile, "--ids", ids.join(","), "--repo", fx.dir, "--agent", "command", "--command", bomb, "--isolation", "namespace",
        "--max-processes", "32", "--max-memory", "64M", "--max-disk", "16M", "--timeout", "120", "--jobs", "1", "--out", out],
      { env: { GITGOOD_SANDBOX_ROOT: fx.scratch("sandboxes") } },
    );
    const records = readFileSync(path.join(out, "results.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as ResultRecord);
    expect(records.map((x) => [x.status, x.error?.code, x.error?.message])).toEqual(
      ids.map(() => ["error", "LIMIT_EXCEEDED", "a program of the attempt ran into its processes limit of 32 and was stopped"]),
    );
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    const config = JSON.parse(readFileSync(path.join(out, "run.json"), "utf8")) as { isolation: { limits: Record<string, unknown> } };
    expect(config.isolation.limits).toMatchObject({ processes: 32, memory_bytes: 64 * 1024 * 1024, disk_bytes: 16 * 1024 * 1024, cpu_s: 120, accept_weak: false });
    expect(Object.keys(config.isolation.limits.enforcement as object).sort()).toEqual(["cpu", "disk", "memory", "processes"]);
  });
});
