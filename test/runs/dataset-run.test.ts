import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sample } from "../../src/dataset/sample.js";
import { gitgood } from "../helpers/cli.js";
import { writePublishedCsv } from "../helpers/dataset.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture } from "../helpers/runs.js";

let fx: Fixture;
let samples: Sample[];

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
});
afterAll(() => fx.remove());

describe("published data end to end", () => {
  it("imports a published CSV, clones its repositories and runs on them with --dataset and --repos", async () => {
    const env = { GITGOOD_SANDBOX_ROOT: fx.scratch("sandboxes") };
    // The "remote" is the fixture itself, served as acme/calc under a file:// mirror directory.
    const mirrors = fx.scratch("mirrors");
    mkdirSync(path.join(mirrors, "acme"), { recursive: true });
    fx.git("clone", "-q", "--bare", fx.dir, path.join(mirrors, "acme", "calc.git"));
    const csv = path.join(fx.scratch("data"), "published.csv");
    writePublishedCsv(csv, samples);
    const repos = fx.scratch("repos");
    const clone = await gitgood(["dataset", "repos", csv, "--into", repos, "--url", `file://${mirrors}/{owner}/{repo}.git`], { env });
    expect(clone.code).toBe(0);
    const out = path.join(fx.scratch("run"), "r");
    const r = await gitgood(["run", "--dataset", csv, "--repos", repos, "--agent", "oracle", "--out", out], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/MCR\s+2\s+100\.00\s+100\.00/);
    expect(r.stdout).toMatch(/total\s+4\s+100\.00/);
  });
});
