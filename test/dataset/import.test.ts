import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readDataset } from "../../src/dataset/importer.js";
// The families' dataset readers (SWE-bench and commit0 instances) are registered by the family registry.
import "../../src/families/registry.js";
import { formatPythonLiteral } from "../../src/dataset/pyliteral.js";
import { sampleToJson } from "../../src/dataset/sample.js";
import {
  mergeSample,
  publishedRecord,
  variedSamples,
  writePublishedCsv,
  writePublishedJsonl,
  writePublishedParquet,
} from "../helpers/dataset.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-import-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => path.join(dir, name);

async function importError(files: string[]): Promise<{ code: string; message: string }> {
  try {
    await readDataset(files);
  } catch (err) {
    const e = err as { code: string; message: string };
    return { code: e.code, message: e.message };
  }
  throw new Error("import did not fail");
}

describe("readDataset round trip", () => {
  const samples = variedSamples();

  it.each([
    ["published JSONL", "rt.jsonl", writePublishedJsonl],
    ["published CSV", "rt.csv", writePublishedCsv],
    ["published Parquet", "rt.parquet", (f: string, s: typeof samples) => writePublishedParquet(f, s)],
    [
      "Parquet with loose types",
      "rt-loose.parquet",
      (f: string, s: typeof samples) => writePublishedParquet(f, s, { loose: true }),
    ],
    ["gzip Parquet", "rt-gzip.parquet", (f: string, s: typeof samples) => writePublishedParquet(f, s, { gzip: true })],
    [
      "gitgood JSONL",
      "rt-own.jsonl",
      (f: string, s: typeof samples) => writeFileSync(f, s.map((x) => `${sampleToJson(x)}\n`).join("")),
    ],
  ])("%s gives back identical samples", async (_label, name, write) => {
    write(file(name), samples);
    const data = await readDataset([file(name)]);
    expect(data.samples).toEqual(samples);
    expect(data.samples.map(sampleToJson)).toEqual(samples.map(sampleToJson));
    expect(data.warnings).toEqual([]);
  });

  it("concatenates several files in order, whatever their formats", async () => {
    const [a, b, c, d] = samples;
    writePublishedCsv(file("part1.csv"), [a!, b!]);
    writePublishedParquet(file("part2.parquet"), [c!]);
    writePublishedJsonl(file("part3.jsonl"), [d!]);
    const data = await readDataset([file("part1.csv"), file("part2.parquet"), file("part3.jsonl")]);
    expect(data.samples.map((s) => s.id)).toEqual(samples.map((s) => s.id));
    expect(data.files.map((f) => [path.basename(f.file), f.format, f.samples])).toEqual([
      ["part1.csv", "csv", 2],
      ["part2.parquet", "parquet", 1],
      ["part3.jsonl", "jsonl", 1],
    ]);
  });
});

describe("readDataset normalisation", () => {
  it("accepts loosely typed values and reports extra columns", async () => {
    const s = mergeSample({ name: "a/b", index: 3 });
    const literal = formatPythonLiteral({ ...s.scenario, extra_key: null }).replace(
      /'parents': \['([0-9a-f]+)', '([0-9a-f]+)'\]/,
      "'parents': ('$1', '$2')",
    );
    expect(literal).toContain("'parents': ('");
    const row = {
      ...publishedRecord(s),
      stargazers: "1203.0",
      topics: ["git", "testing"],
      difficulty: " Easy ",
      project_size: "MEDIUM",
      scenario: literal,
      popularity: 3,
    };
    writeFileSync(file("loose.jsonl"), `${JSON.stringify(row)}\n`);
    const data = await readDataset([file("loose.jsonl")]);
    expect(data.samples).toEqual([s]);
    expect(data.warnings).toEqual([`${file("loose.jsonl")}: ignored columns: popularity`]);
  });

  it("reads a scenario given as JSON text, and None for an absent optional key", async () => {
    const s = variedSamples()[3]!;
    const asJson = { ...publishedRecord(s), scenario: JSON.stringify(s.scenario) };
    const withNone = { ...publishedRecord(s), id: "other_id", scenario: formatPythonLiteral({ ...s.scenario, non_pl_files: null }) };
    writeFileSync(file("jsontext.jsonl"), `${JSON.stringify(asJson)}\n${JSON.stringify(withNone)}\n`);
    const data = await readDataset([file("jsontext.jsonl")]);
    expect(data.samples).toEqual([s, { ...s, id: "other_id" }]);
  });

  it("reads a JSON array file", async () => {
    const samples = variedSamples();
    writeFileSync(file("array.json"), JSON.stringify(samples.map(publishedRecord)));
    expect((await readDataset([file("array.json")])).samples).toEqual(samples);
  });
});

describe("readDataset errors", () => {
  it("names the file and row id for a malformed scenario literal, with the position", async () => {
    const s = mergeSample({ name: "a/b", index: 1 });
    const good = publishedRecord(s);
    const bad = { ...publishedRecord(mergeSample({ name: "a/b", index: 2 })), scenario: "{'merge_commit_hash': 'x' 'parents': []}" };
    writeFileSync(file("bad-literal.jsonl"), `${JSON.stringify(good)}\n${JSON.stringify(bad)}\n`);
    expect(await importError([file("bad-literal.jsonl")])).toEqual({
      code: "BAD_ROW",
      message: `${file("bad-literal.jsonl")}: row a_b_merge_0002: scenario: expected ',' or '}' but found ''' at position 26`,
    });
  });

  it("names the field that fails the schema", async () => {
    const rec = { ...publishedRecord(mergeSample({ name: "a/b", index: 1 })), difficulty: "impossible" };
    writeFileSync(file("bad-difficulty.jsonl"), `${JSON.stringify(rec)}\n`);
    const e = await importError([file("bad-difficulty.jsonl")]);
    expect(e.message).toMatch(/bad-difficulty\.jsonl: row a_b_merge_0001: difficulty: /);
  });

  it("names a bad commit hash inside the scenario", async () => {
    const s = mergeSample({ name: "a/b", index: 1 });
    const rec = publishedRecord({ ...s, scenario: { ...s.scenario, parents: [s.scenario.parents[0], "nothex"] } });
    writeFileSync(file("bad-parent.jsonl"), `${JSON.stringify(rec)}\n`);
    const e = await importError([file("bad-parent.jsonl")]);
    expect(e.message).toBe(`${file("bad-parent.jsonl")}: row a_b_merge_0001: scenario.parents[1]: a full commit hash`);
  });

  it("rejects a non-integer star count", async () => {
    const rec = { ...publishedRecord(mergeSample({ name: "a/b", index: 1 })), stargazers: "12.5k" };
    writeFileSync(file("bad-stars.jsonl"), `${JSON.stringify(rec)}\n`);
    expect((await importError([file("bad-stars.jsonl")])).message).toBe(
      `${file("bad-stars.jsonl")}: row a_b_merge_0001: stargazers: expected a whole number, got '12.5k'`,
    );
  });

  it("uses the row number when a row has no id", async () => {
    const s = mergeSample({ name: "a/b", index: 1 });
    writePublishedCsv(file("no-id.csv"), [s, { ...s, id: "" }]);
    expect((await importError([file("no-id.csv")])).message).toBe(`${file("no-id.csv")}: row 2 (line 3): id: missing`);
  });

  it("rejects a CSV row with the wrong number of fields", async () => {
    writePublishedCsv(file("short.csv"), [mergeSample({ name: "a/b", index: 1 })]);
    appendFileSync(file("short.csv"), "7,a_b_merge_0009,a/b\n");
    expect((await importError([file("short.csv")])).message).toBe(
      `${file("short.csv")}: row a_b_merge_0009: 3 fields where the header has 13`,
    );
  });

  it("rejects duplicate ids within and across files", async () => {
    const s = mergeSample({ name: "a/b", index: 1 });
    writePublishedJsonl(file("dup1.jsonl"), [s]);
    writePublishedCsv(file("dup2.csv"), [mergeSample({ name: "a/b", index: 2 }), s]);
    expect(await importError([file("dup1.jsonl"), file("dup2.csv")])).toEqual({
      code: "DUPLICATE_ID",
      message: `${file("dup2.csv")}: row a_b_merge_0001: duplicate id (first in ${file("dup1.jsonl")})`,
    });
    writePublishedJsonl(file("dup3.jsonl"), [s, s]);
    expect((await importError([file("dup3.jsonl")])).message).toBe(
      `${file("dup3.jsonl")}: row a_b_merge_0001: duplicate id (earlier in the same file)`,
    );
  });

  it("rejects unknown formats, unreadable files, invalid JSON and non-Parquet bytes", async () => {
    writeFileSync(file("data.txt"), "x");
    expect(await importError([file("data.txt")])).toEqual({
      code: "UNKNOWN_FORMAT",
      message: `${file("data.txt")}: unknown dataset format (expected .parquet, .csv or .jsonl, or pass --format)`,
    });
    expect(await importError([file("absent.jsonl")])).toEqual({
      code: "UNREADABLE_FILE",
      message: `${file("absent.jsonl")}: cannot read: no such file or directory`,
    });
    writeFileSync(file("broken.jsonl"), '{"id": 1}\n{oops\n');
    expect((await importError([file("broken.jsonl")])).message).toMatch(
      /broken\.jsonl: row 2 \(line 2\): invalid JSON: /,
    );
    writeFileSync(file("fake.parquet"), "not parquet at all");
    const e = await importError([file("fake.parquet")]);
    expect(e.code).toBe("BAD_PARQUET");
    expect(e.message).toMatch(/fake\.parquet: not a readable Parquet file: /);
  });
});
