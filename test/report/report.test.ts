import { describe, expect, it } from "vitest";
import type { ErrorCode } from "../../src/errors.js";
import { renderStaticPage } from "../../src/report/html.js";
import { readStaticPage } from "../../src/report/html-read.js";
import { REPORT_SCHEMA_VERSION, buildReport, type RateRow } from "../../src/report/summary.js";
import { formatReport } from "../../src/report/text.js";
import { RESULTS_SCHEMA_VERSION, resultKey, type ResultRecord } from "../../src/runs/record.js";

let n = 0;

/** A results record: solved, or an error with `code` (a string, as results files hold them). */
function record(scenario: string, difficulty: ResultRecord["difficulty"], code: ErrorCode | "FROM_ANOTHER_VERSION" | null): ResultRecord {
  const id = `acme_calc_sample_${String(n++).padStart(4, "0")}`;
  return {
    schema_version: RESULTS_SCHEMA_VERSION,
    key: resultKey(id, scenario),
    sample_id: id,
    scenario,
    repository: "acme/calc",
    difficulty,
    agent: "llm:tiny",
    status: code ? "error" : "success",
    solved: code ? false : true,
    verdict: code ? "error" : "solved",
    scores: {},
    error: code ? { code, message: `failed with ${code}` } : null,
    turns: 1,
    tool_calls: 1,
    tokens: { prompt: 10, completion: 5 },
    cost_usd: null,
    started_at: "2024-01-01T00:00:00.000Z",
    duration_ms: 1000,
    trajectory: null,
  };
}

const records = [
  record("MCR", "easy", null),
  record("MCR", "easy", "TIMEOUT"),
  record("MCR", "hard", "MODEL_UNREACHABLE"),
  record("MCR", "hard", "AGENT_FAILED"),
  record("MCR", "hard", "SAMPLE_MISMATCH"),
  record("IR", "easy", "CLIENT_DISCONNECTED"),
  record("IR", "easy", "ORACLE_FAILED"),
  record("ICC", "medium", "FROM_ANOTHER_VERSION"),
  record("ICC", "medium", null),
];

const counts = (r: RateRow | undefined) => [r?.samples, r?.success, r?.infrastructure_errors, r?.agent_errors, r?.other_errors];

describe("report", () => {
  it("counts error records by fault on every rate row: infrastructure, agent, and the rest", () => {
    const report = buildReport({ records });
    expect(report.schema_version).toBe(REPORT_SCHEMA_VERSION);
    expect(REPORT_SCHEMA_VERSION).toBe(2);
    const total = (s: string) => report.totals.find((t) => t.scenario === s);
    expect(counts(total("MCR"))).toEqual([5, 1, 2, 1, 1]);
    expect(counts(total("IR"))).toEqual([2, 0, 0, 1, 1]);
    expect(counts(total("ICC"))).toEqual([2, 1, 0, 0, 1]);
    expect(counts(total("total"))).toEqual([9, 2, 2, 2, 3]);
    const hard = report.by_difficulty.find((r) => r.scenario === "MCR" && r.difficulty === "hard");
    expect(counts(hard)).toEqual([3, 0, 1, 1, 1]);
    for (const row of [...report.totals, ...report.by_difficulty]) {
      expect(row.infrastructure_errors + row.agent_errors + row.other_errors).toBe(row.samples - row.success);
    }
  });

  it("shows the counts in the text tables", () => {
    const text = formatReport(buildReport({ records }));
    expect(text).toMatch(/^scenario\s+samples\s+completed\s+solved\s+infra errors\s+agent errors\s+other errors$/m);
    expect(text).toMatch(/^MCR\s+5\s+20\.00\s+20\.00\s+2\s+1\s+1$/m);
    expect(text).toMatch(/^total\s+9\s+22\.22\s+22\.22\s+2\s+2\s+3$/m);
    expect(text).toMatch(/^MCR\s+hard\s+3\s+0\.00\s+0\.00\s+1\s+1\s+1$/m);
  });

  it("renders HTML with the counts (in its summary's data and in the text it shows without script)", () => {
    const html = renderStaticPage([{ dir: "/nonexistent/gitgood-run", records, agent: "llm:tiny", label: "nightly run" }], { title: "nightly run" });
    const { index } = readStaticPage(html);
    const mcr = index.runs[0]?.summary.totals.find((t) => t.scenario === "MCR");
    expect(mcr && [mcr.samples, mcr.success_rate, mcr.solve_rate, mcr.infrastructure_errors, mcr.agent_errors, mcr.other_errors]).toEqual([5, 20, 20, 2, 1, 1]);
    expect(html).toMatch(/<noscript>[\s\S]*MCR\s+5\s+20\.00\s+20\.00\s+2\s+1\s+1[\s\S]*<\/noscript>/);
    expect(index.rows.filter((r) => r.error === "TIMEOUT")).toHaveLength(1);
    expect(html).toContain("<title>nightly run</title>");
  });
});
