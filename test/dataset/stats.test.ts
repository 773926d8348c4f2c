import { describe, expect, it } from "vitest";
import type { Sample } from "../../src/dataset/sample.js";
import { datasetStats, describe as summarize, formatStats, statsReport } from "../../src/dataset/stats.js";
import { chainSample, mergeSample } from "../helpers/dataset.js";

describe("describe", () => {
  it("matches pandas describe: sample std, linear quartiles", () => {
    const d = summarize([4, 1, 10, 3, 2]);
    expect(d).toMatchObject({ count: 5, mean: 4, min: 1, q1: 2, median: 3, q3: 4, max: 10 });
    expect(d?.std).toBeCloseTo(Math.sqrt(12.5), 12);
    expect(summarize([1, 2, 3, 4])).toMatchObject({ q1: 1.75, median: 2.5, q3: 3.25 });
    expect(summarize([7])).toEqual({ count: 1, mean: 7, std: null, min: 7, q1: 7, median: 7, q3: 7, max: 7 });
    expect(summarize([])).toBeNull();
  });
});

function dataset(): Sample[] {
  const out: Sample[] = [];
  // Repository a/x: 3 merges (easy, medium, hard); b/y: 1 merge (hard) and 2 chains; c/z: 1 chain (Kotlin).
  out.push(mergeSample({ name: "a/x", index: 0, language: "Java", difficulty: "easy" }));
  out.push(mergeSample({ name: "a/x", index: 1, language: "Java", difficulty: "medium" }));
  out.push(mergeSample({ name: "a/x", index: 2, language: "Java", difficulty: "hard" }));
  out.push(mergeSample({ name: "b/y", index: 0, language: "Python", difficulty: "hard" }));
  out.push(chainSample({ name: "b/y", index: 0, language: "Python", difficulty: "easy" }));
  out.push(chainSample({ name: "b/y", index: 1, language: "Python", difficulty: "easy" }));
  out.push(chainSample({ name: "c/z", index: 0, language: "Kotlin", difficulty: "hard" }));
  return out;
}

describe("datasetStats", () => {
  it("counts samples per repository, difficulty per type, and languages", () => {
    const s = datasetStats("lite", dataset());
    expect(s.samples).toBe(7);
    expect(s.by_type).toEqual({ merge: 4, file_commit_chain: 3 });
    expect(s.per_repository.all).toMatchObject({ count: 3, mean: 7 / 3, min: 1, median: 3, max: 3 });
    expect(s.per_repository.merge).toMatchObject({ count: 2, mean: 2, min: 1, max: 3 });
    expect(s.per_repository.file_commit_chain).toMatchObject({ count: 2, mean: 1.5, min: 1, max: 2 });
    expect(s.difficulty).toEqual({
      merge: { easy: 1, medium: 1, hard: 2 },
      file_commit_chain: { easy: 2, medium: 0, hard: 1 },
    });
    expect(s.languages).toEqual([
      { language: "Java", merge: 3, file_commit_chain: 0, total: 3 },
      { language: "Kotlin", merge: 0, file_commit_chain: 1, total: 1 },
      { language: "Python", merge: 1, file_commit_chain: 2, total: 3 },
    ]);
  });

  it("reports ids shared between files and prints aligned tables", () => {
    const all = dataset();
    const report = statsReport([
      { label: "lite", samples: all.slice(0, 3) },
      { label: "train", samples: all.slice(2) },
    ]);
    expect(report.shared_ids).toBe(1);
    const text = formatStats(report);
    expect(text).toContain(
      [
        "Samples per repository",
        "split  type               repos  mean   std  min   25%   50%   75%  max",
        "lite   all                    1  3.00     -    3  3.00  3.00  3.00    3",
        "lite   merge                  1  3.00     -    3  3.00  3.00  3.00    3",
        "train  all                    3  1.67  1.15    1  1.00  1.00  2.00    3",
        "train  merge                  2  1.00  0.00    1  1.00  1.00  1.00    1",
        "train  file_commit_chain      2  1.50  0.71    1  1.25  1.50  1.75    2",
        "",
      ].join("\n"),
    );
    expect(text).toContain("Difficulty\nsplit  type               easy  medium  hard  total\nlite   merge                 1       1     1      3\n");
    expect(text).toContain("train  Kotlin        0                  1      1\ntrain  Python        1                  2      3\n");
    expect(text).toContain("train  total         2                  3      5\n");
    expect(text).toContain("ids in more than one file: 1\n");
  });
});
