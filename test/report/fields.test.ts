import { describe, expect, it } from "vitest";
import type { MergeSample } from "../../src/dataset/sample.js";
import { GitGoodError } from "../../src/errors.js";
import { buildReport } from "../../src/report/summary.js";
import { ResultRecordSchema } from "../../src/runs/record.js";
import { resultRecord, type RecordInput } from "../../src/runs/result.js";
import { chainSample, mergeSample } from "../helpers/dataset.js";

const input = (sample: RecordInput["sample"], outcome: RecordInput["outcome"]): RecordInput => ({
  sample,
  scenario: sample.sample_type === "merge" ? "MCR" : "IR",
  agent: "oracle",
  startedAt: new Date(0),
  durationMs: 5,
  turns: 1,
  toolCalls: 1,
  tokens: { prompt: 0, completion: 0 },
  trajectory: null,
  outcome,
});

const scored = { scored: { scores: {}, solved: false } };

describe("result records", () => {
  it("carry the sample's language and, for merges that say, whether they are resolvable: the report needs no samples file", () => {
    const merge = mergeSample({ name: "acme/calc", index: 0, language: "Kotlin" });
    const unresolvable = { ...merge, scenario: { ...merge.scenario, resolvable: false } } as MergeSample;
    const records = [
      resultRecord(input(unresolvable, scored)),
      resultRecord(input({ ...unresolvable, id: "acme_calc_merge_0001", scenario: { ...unresolvable.scenario, resolvable: true } } as MergeSample, scored)),
      resultRecord(input(merge, { error: new GitGoodError("TIMEOUT", "slow") })),
      resultRecord(input(chainSample({ name: "acme/calc", index: 0, language: null }), scored)),
    ];
    expect(records.map((r) => [r.programming_language, r.resolvable])).toEqual([
      ["Kotlin", false],
      ["Kotlin", true],
      ["Kotlin", null],
      [null, null],
    ]);
    for (const r of records) expect(ResultRecordSchema.parse(JSON.parse(JSON.stringify(r)))).toEqual(r);
    const mcr = buildReport({ records: records.slice(0, 2) }).totals.find((t) => t.scenario === "MCR");
    expect(mcr?.ceiling).toBe(50);
  });

  it("of older runs, without the new fields, still parse", () => {
    const r = resultRecord(input(chainSample({ name: "acme/calc", index: 0 }), scored));
    const { programming_language: _l, resolvable: _r, ...old } = r;
    expect(ResultRecordSchema.safeParse(old).success).toBe(true);
  });
});
