import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sample } from "../../src/dataset/sample.js";
import { readRun } from "../../src/export/attempts.js";
import { RunStore, trajectoryPath } from "../../src/runs/store.js";
import { safeFileName } from "../../src/util/file-names.js";
import { RunSet } from "../../src/view/data.js";
import { gitgood } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture } from "../helpers/runs.js";

/** Sample ids no file name may be made of as they are. */
const ODD_IDS = ["x".repeat(5000), "..", "../x", ".hidden", "a/b", "a_b", "ünï/cödé\u0007\u0000✓", "-rf"];

let fx: Fixture;
let scratch: string;
let samples: Sample[];
/** Everything is written below `scratch/work`; `scratch` itself must hold nothing else afterwards. */
let work: string;

beforeAll(async () => {
  const built = await buildRunFixture();
  fx = built.fx;
  scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-odd-ids-"));
  work = path.join(scratch, "work");
  process.env.GITGOOD_SANDBOX_ROOT = path.join(work, "sandboxes");
  const merge = built.samples.find((s) => s.sample_type === "merge" && s.difficulty === "easy")!;
  const chain = built.samples.find((s) => s.sample_type === "file_commit_chain")!;
  samples = ODD_IDS.map((id, i) => ({ ...(i % 2 === 0 ? merge : chain), id }));
  writeFileSync(path.join(scratch, "samples.jsonl"), samples.map((s) => `${JSON.stringify(s)}\n`).join(""));
}, 120_000);

afterAll(() => {
  fx?.remove();
  rmSync(scratch, { recursive: true, force: true });
});

/** Every file below `dir`, relative to it. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

describe("safeFileName", () => {
  it("makes a bounded, safe, distinct name of every id and keeps a plain one as it is", () => {
    const names = ODD_IDS.map((id) => safeFileName(id));
    for (const n of names) {
      expect(Buffer.byteLength(n)).toBeLessThanOrEqual(120);
      expect(n).toMatch(/^[A-Za-z0-9][A-Za-z0-9._~-]*$/);
    }
    expect(new Set(names).size).toBe(names.length);
    expect(safeFileName("acme_calc_merge_0000")).toBe("acme_calc_merge_0000");
    // A text shaped like a digested name is digested too, so it cannot take another text's name.
    const digested = safeFileName("a/b");
    expect(safeFileName(digested)).not.toBe(digested);
    const harbor = safeFileName("a/b-ir", "-");
    expect(safeFileName(harbor, "-")).not.toBe(harbor);
  });
});

describe("a run over samples with odd ids", () => {
  it("runs, scores, serves, and exports to Harbor, Inspect and ATIF, writing nothing outside its directories", async () => {
    const run = path.join(work, "run");
    const r = await gitgood(["run", path.join(scratch, "samples.jsonl"), "--repo", fx.dir, "--agent", "oracle", "--out", run]);
    expect(r.stderr).not.toMatch(/ENAMETOOLONG|at .*\.js:/);
    expect(r.code).toBe(0);
    const records = readRun(run).records;
    // A merge gives MCR, a chain IR and ICC.
    expect(records).toHaveLength((ODD_IDS.length / 2) * 3);
    expect(records.every((x) => x.status === "success")).toBe(true);
    for (const rec of records) {
      expect(rec.trajectory).toBe(trajectoryPath(rec.key));
      expect(path.basename(rec.trajectory!)).toMatch(/^[A-Za-z0-9]/);
    }

    const score = await gitgood(["score", run]);
    expect(score.stderr).not.toMatch(/trajectory/);
    expect(score.code).toBe(0);

    // The viewer's data: every attempt with its trajectory.
    const view = new RunSet([run], ["odd"]);
    for (const row of (await view.index()).rows) {
      const a = await view.attempt(0, row.key);
      expect(a, row.key).not.toBeNull();
      expect(JSON.stringify(a)).not.toMatch(/cannot be read|not in the expected format/);
    }
    expect(RunStore.openExisting(run).all().map((x) => x.sample_id).sort()).toEqual(expect.arrayContaining(ODD_IDS));

    const harbor = await gitgood(["export", "harbor", path.join(scratch, "samples.jsonl"), path.join(work, "harbor"), "--repo", fx.dir]);
    expect(harbor.stderr).not.toMatch(/ENAMETOOLONG|not exported/);
    expect(harbor.code).toBe(0);
    const tasks = readdirSync(path.join(work, "harbor"));
    expect(tasks).toHaveLength(records.length);
    for (const t of tasks) expect(t).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
    const toml = tasks.map((t) => readFileSync(path.join(work, "harbor", t, "task.toml"), "utf8"));
    expect(toml.every((text) => /name = "gitgood\/[A-Za-z0-9][A-Za-z0-9._-]*"/.test(text))).toBe(true);

    const inspect = await gitgood(["export", "inspect", run, "--out", path.join(work, "inspect")]);
    expect(inspect.code).toBe(0);
    const atif = await gitgood(["export", "atif", run, "--out", path.join(work, "atif")]);
    expect(atif.code).toBe(0);
    expect(filesBelow(path.join(work, "atif"))).toHaveLength(records.length);

    // Nothing beside the intended directories, and no name a reader or a shell would trip on.
    expect(readdirSync(scratch).sort()).toEqual(["samples.jsonl", "work"]);
    for (const f of [...filesBelow(path.join(work, "atif")), ...filesBelow(path.join(run, "trajectories"))]) {
      for (const part of f.split(path.sep)) {
        expect(part).toMatch(/^[A-Za-z0-9]/);
        expect(Buffer.byteLength(part)).toBeLessThanOrEqual(120);
      }
    }
  }, 300_000);
});
