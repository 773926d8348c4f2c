import { describe, expect, it } from "vitest";
import { buildReport } from "../../src/report/summary.js";
import { formatReport } from "../../src/report/text.js";
import { rec } from "./records.js";

const score = (passed: number, total: number, runtime_s: number, skeleton: { passed: number; total: number } | null) => ({
  commit0: { passed, total, pass_rate: total === 0 ? 0 : passed / total, runtime_s, failed: [], applied: true, tests: null, environment: null, skeleton },
});

const RECORDS = [
  rec("cachetools", "COMMIT0", { repository: "tkem/cachetools", solved: false, scores: score(165, 215, 12.34, { passed: 148, total: 215 }) }),
  rec("wcwidth", "COMMIT0", { repository: "jquast/wcwidth", solved: false, scores: score(2, 38, 3.5, null) }),
  // A failed attempt counts 0: its tests are missing.
  rec("deprecated", "COMMIT0", { repository: "tantale/deprecated", status: "error", solved: false, verdict: "error", error: { code: "TIMEOUT", message: "late" } }),
  rec("acme_calc_merge_0000", "MCR"),
];

describe("the commit0 table", () => {
  it("gives per repository the runtime and passed / total beside the skeleton's own, and the mean pass rate over repositories (a failed attempt 0)", () => {
    const report = buildReport({ records: RECORDS });
    expect(report.commit0.rows).toEqual([
      { agent: "llm:tiny", repository: "jquast/wcwidth", sample_id: "wcwidth", runtime_s: 3.5, passed: 2, total: 38, pass_rate: 5.26, error: null, tampered: 0, skeleton_passed: null, skeleton_pass_rate: null },
      { agent: "llm:tiny", repository: "tantale/deprecated", sample_id: "deprecated", runtime_s: null, passed: 0, total: null, pass_rate: 0, error: "TIMEOUT", tampered: 0, skeleton_passed: null, skeleton_pass_rate: null },
      { agent: "llm:tiny", repository: "tkem/cachetools", sample_id: "cachetools", runtime_s: 12.34, passed: 165, total: 215, pass_rate: 76.74, error: null, tampered: 0, skeleton_passed: 148, skeleton_pass_rate: 68.84 },
    ]);
    // (5.26 + 0 + 76.74) / 3
    expect(report.commit0.means).toEqual([{ agent: "llm:tiny", repositories: 3, mean_pass_rate: 27.33, passed: 167, total: 253, skeleton_mean_pass_rate: null }]);
    const text = formatReport(report);
    expect(text).toContain(
      [
        "Repository completion (commit0)",
        "Repository          Runtime (s)  Passed / Total  Skeleton alone",
        "jquast/wcwidth              3.5          2 / 38         unknown",
        "tantale/deprecated      TIMEOUT           0 / -         unknown",
        "tkem/cachetools            12.3       165 / 215       148 / 215",
        "mean pass rate 27.33 % over 3 repositories (the skeletons alone: unknown)",
      ].join("\n"),
    );
  });

  it("gives the skeletons' mean when every repository's skeleton was measured", () => {
    const report = buildReport({ records: [
      rec("cachetools", "COMMIT0", { repository: "tkem/cachetools", solved: false, scores: score(165, 215, 12.34, { passed: 148, total: 215 }) }),
      rec("wcwidth", "COMMIT0", { repository: "jquast/wcwidth", solved: false, scores: score(2, 38, 3.5, { passed: 0, total: 38 }) }),
    ] });
    expect(report.commit0.means).toEqual([{ agent: "llm:tiny", repositories: 2, mean_pass_rate: 41, passed: 167, total: 253, skeleton_mean_pass_rate: 34.42 }]);
    expect(formatReport(report)).toContain("mean pass rate 41.00 % over 2 repositories (the skeletons alone: 34.42 %)");
  });

  it("is left out of a report without COMMIT0 records", () => {
    const report = buildReport({ records: [rec("acme_calc_merge_0000", "MCR")] });
    expect(report.commit0).toEqual({ rows: [], means: [] });
    expect(formatReport(report)).not.toContain("Repository completion");
  });
});
