import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleToJson } from "../../src/dataset/sample.js";
import { MATRIX_FILE, matrixCells } from "../../src/runs/matrix.js";
import { gitgood } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture } from "../helpers/runs.js";

describe("matrixCells", () => {
  it("crosses the agents that ask a model with every model, runs the others once, and gives each a directory of its own", () => {
    const cells = matrixCells("llm, ours,llm", "a/b,scripted/x.json,a_b");
    expect(cells.map((c) => [c.agent, c.model, c.name, c.label])).toEqual([
      ["llm", "a/b", "llm--a_b", "llm × a/b"],
      ["llm", "scripted/x.json", "llm--scripted_x.json", "llm × scripted/x.json"],
      ["llm", "a_b", "llm--a_b-2", "llm × a_b"],
      ["ours", undefined, "ours", "ours"],
    ]);
    expect(matrixCells("llm", "m")).toHaveLength(1);
    expect(() => matrixCells(" , ", undefined)).toThrow(/names no agent/);
    expect(() => matrixCells("llm", ",")).toThrow(/names no model/);
  });
});

describe("gitgood run with several agents and models", () => {
  let fx: Fixture;
  let file: string;
  beforeAll(async () => {
    const built = await buildRunFixture();
    fx = built.fx;
    const merge = built.samples.find((s) => s.sample_type === "merge" && s.difficulty === "easy");
    if (!merge) throw new Error("the run fixture has no easy merge");
    file = path.join(fx.scratch("data"), "samples.jsonl");
    writeFileSync(file, `${sampleToJson(merge)}\n`);
  });
  afterAll(() => fx.remove());

  it("runs each combination into its own directory, records a failing one and goes on, compares the others, and resumes per combination", async () => {
    const data = fx.scratch("data");
    const talker = path.join(data, "talker.json");
    writeFileSync(talker, JSON.stringify(["I looked.", "Still looking.", "Done."]));
    const late = path.join(data, "late.json");
    const out = path.join(fx.scratch("matrix"), "m");
    const args = ["run", file, "--repo", fx.dir, "--scenario", "MCR", "--agent", "llm,ours", "--model", `scripted/${talker},scripted/${late}`, "--out", out];
    const env = { GITGOOD_SANDBOX_ROOT: fx.scratch("sandboxes") };

    // scripted/late.json does not exist yet: that combination fails, the other two run and are compared.
    const first = await gitgood(args, { env });
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/1 of 3 matrix run\(s\) failed \(llm × scripted\/.*late\.json: BAD_OPTION\)/);
    const talkerDir = `llm--scripted_${talker.slice(1).replace(/[^A-Za-z0-9._-]+/g, "_")}`.slice(0, 80);
    const index = JSON.parse(readFileSync(path.join(out, MATRIX_FILE), "utf8")) as { cells: { agent: string; status: string; dir: string }[] };
    expect(index.cells.map((c) => [c.agent, c.status])).toEqual([
      ["llm", "finished"],
      ["llm", "failed"],
      ["ours", "finished"],
    ]);
    expect(index.cells[0]?.dir).toBe(talkerDir);
    expect(readdirSync(out).sort()).toEqual(["comparison.html", MATRIX_FILE, talkerDir, "ours"].sort());
    expect(first.stdout).toContain(`llm × scripted/${talker}`);
    expect(first.stdout).toContain("ours");
    const html = readFileSync(path.join(out, "comparison.html"), "utf8");
    expect(html).toContain("ours");
    const attempts = (dir: string): number => readFileSync(path.join(out, dir, "results.jsonl"), "utf8").trim().split("\n").length;
    expect(attempts(talkerDir)).toBe(1);
    expect(attempts("ours")).toBe(1);

    // Run again once the script exists: the finished combinations resume with nothing left to do, the failed one runs.
    writeFileSync(late, JSON.stringify(["a", "b", "c"]));
    const second = await gitgood([...args, "--json"], { env });
    expect(second.code, second.stderr).toBe(0);
    const again = JSON.parse(readFileSync(path.join(out, MATRIX_FILE), "utf8")) as { cells: { status: string; dir: string }[] };
    expect(again.cells.map((c) => c.status)).toEqual(["finished", "finished", "finished"]);
    expect(attempts(talkerDir)).toBe(1);
    expect(attempts("ours")).toBe(1);
    expect(existsSync(path.join(out, again.cells[1]?.dir ?? "", "results.jsonl"))).toBe(true);
    const comparison = JSON.parse(second.stdout) as { runs?: unknown[] };
    expect(JSON.stringify(comparison)).toContain(`llm × scripted/${late}`);
  });
});
