import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleToJson, type Sample } from "../../src/dataset/sample.js";
import { gitgood, spawnGitgood, type CliResult } from "../helpers/cli.js";
import { chainSample, syntheticDataset, variedSamples, writePublishedCsv, writePublishedParquet } from "../helpers/dataset.js";
import { Fixture } from "../helpers/fixture.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-dataset-cli-"));
const file = (name: string) => path.join(dir, name);
const jsonl = (samples: readonly Sample[]) => samples.map((s) => `${sampleToJson(s)}\n`).join("");

/** `gitgood dataset ARGS` in the test's directory, in this process. */
const cli = (...args: string[]): Promise<CliResult> => gitgood(["dataset", ...args], { cwd: dir });

beforeAll(() => {
  if (!existsSync(path.join(repoRoot, "dist", "cli", "dataset.js"))) {
    throw new Error("dist/ has no dataset command: run 'npm run build' before the smoke test");
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("gitgood dataset import", () => {
  it("converts CSV and Parquet to gitgood JSONL, to a file or stdout (its own process)", async () => {
    const samples = variedSamples();
    writePublishedCsv(file("a.csv"), samples.slice(0, 2));
    writePublishedParquet(file("b.parquet"), samples.slice(2));
    const r = spawnGitgood(["dataset", "import", "a.csv", "b.parquet", "-o", "out.jsonl"], { cwd: dir });
    expect(r).toMatchObject({ code: 0, stdout: "" });
    expect(r.stderr).toBe("imported 4 samples (2 merge, 2 file_commit_chain) from 2 files -> out.jsonl\n");
    expect(readFileSync(file("out.jsonl"), "utf8")).toBe(jsonl(samples));
    const again = await cli("import", "out.jsonl");
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(jsonl(samples));
  });

  it("fails with one line naming the file and row id", async () => {
    const s = variedSamples()[0]!;
    writeFileSync(file("bad.jsonl"), `${JSON.stringify({ ...s, scenario: "{'parents': [True,,]}" })}\n`);
    const r = await cli("import", "bad.jsonl", "-o", "never.jsonl");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`gitgood: bad.jsonl: row ${s.id}: scenario: unexpected ',' at position 18\n`);
    expect(existsSync(file("never.jsonl"))).toBe(false);
    expect((await cli("import", "data.xlsx")).stderr).toBe(
      "gitgood: data.xlsx: unknown dataset format (expected .parquet, .csv or .jsonl, or pass --format)\n",
    );
    expect(await cli("import", "nothing.csv")).toMatchObject({ code: 1, stderr: "gitgood: nothing.csv: cannot read: no such file or directory\n" });
  });
});

describe("gitgood dataset split and stats", () => {
  it("writes disjoint lite, full and train files, byte-identical for the same seed", async () => {
    const samples = syntheticDataset(60, ["Python", "Java"]);
    writeFileSync(file("all.jsonl"), jsonl(samples));
    const r = await cli("split", "all.jsonl", "--lite", "5", "--full", "20", "--seed", "9", "-o", "splits");
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^wrote 20 lite, 80 full, 140 train samples to splits\n/);
    const read = (n: string) => readFileSync(file(`splits/${n}.jsonl`), "utf8");
    const first = ["lite", "full", "train"].map(read);
    expect(first.map((t) => t.split("\n").filter(Boolean).length)).toEqual([20, 80, 140]);
    expect((await cli("split", "all.jsonl", "--lite", "5", "--full", "20", "--seed", "9", "-o", "splits")).code).toBe(0);
    expect(["lite", "full", "train"].map(read)).toEqual(first);

    const stats = await cli("stats", "splits", "--json");
    expect(stats.code).toBe(0);
    const report = JSON.parse(stats.stdout) as {
      splits: { label: string; samples: number; languages: { language: string; total: number }[] }[];
      shared_ids: number;
    };
    expect(report.splits.map((s) => [s.label, s.samples])).toEqual([
      ["lite", 20],
      ["full", 80],
      ["train", 140],
    ]);
    expect(report.splits[0]?.languages).toEqual([
      { language: "Java", merge: 5, file_commit_chain: 5, total: 10 },
      { language: "Python", merge: 5, file_commit_chain: 5, total: 10 },
    ]);
    expect(report.shared_ids).toBe(0);
    const text = await cli("stats", "splits/lite.jsonl");
    expect(text.stdout).toContain("Samples per repository\n");
    expect(text.stdout).toContain("lite   merge                 ");
  });

  it("fails clearly when a group is too small, and on bad options", async () => {
    writeFileSync(file("few.jsonl"), jsonl(syntheticDataset(10, ["Kotlin"])));
    expect(await cli("split", "few.jsonl", "-o", "x")).toMatchObject({
      code: 1,
      stderr: "gitgood: file_commit_chain samples in Kotlin: only 10, but --lite 20 + --full 150 need 170\n",
    });
    expect(await cli("split", "few.jsonl", "--lite", "two", "-o", "x")).toMatchObject({
      code: 2,
      stderr: "gitgood: --lite takes a whole number, not 'two'\n",
    });
  });
});

describe("gitgood dataset repos", () => {
  it("clones into DIR/owner/repo, prints unverified samples, and exits non-zero for them", async () => {
    const fx = new Fixture({ dir: file("remotes/eve/app") });
    try {
      const oldest = fx.commit("one", { "a.py": "1\n" });
      const newest = fx.commit("two", { "a.py": "2\n" });
      const good = chainSample({ name: "eve/app", index: 0 }, { newest, oldest });
      const bad = chainSample({ name: "eve/app", index: 1 }, { newest, oldest: "0".repeat(40) });
      writeFileSync(file("good.jsonl"), jsonl([good]));
      writeFileSync(file("mixed.jsonl"), jsonl([good, bad]));
      const url = `file://${file("remotes")}/{name}`;
      const ok = await cli("repos", "good.jsonl", "--into", "clones", "--url", url, "--jobs", "2");
      expect(ok).toMatchObject({ code: 0, stdout: "" });
      expect(ok.stderr).toBe("cloned eve/app\n1 repositories (0 failed), 1 of 1 samples verified\n");
      expect(existsSync(file("clones/eve/app/HEAD"))).toBe(true);

      const mixed = await cli("repos", "mixed.jsonl", "--into", "clones", "--url", url);
      expect(mixed.code).toBe(1);
      expect(mixed.stdout).toBe(`${bad.id}\teve/app\tmissing-commits\toldest_commit ${"0".repeat(40)} missing\n`);
      expect(mixed.stderr.split("\n")).toEqual([
        "present eve/app",
        "1 repositories (0 failed), 1 of 2 samples verified",
        "gitgood: 1 samples name commits that are not available (listed on stdout)",
        "",
      ]);
      const json = await cli("repos", "good.jsonl", "--into", "clones", "--url", url, "--json");
      expect(JSON.parse(json.stdout)).toMatchObject({ samples: 1, verified: 1, unverified: [] });
      expect((await cli("repos", "good.jsonl", "--into", "clones", "--url", "https://example.com/x.git")).stderr).toBe(
        "gitgood: --url 'https://example.com/x.git' must contain {name}, or {owner} and {repo}\n",
      );
    } finally {
      fx.remove();
    }
  });
});
