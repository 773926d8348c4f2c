import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, describe, expect, it } from "vitest";
import { buildReport } from "../../src/report/summary.js";
import { agentBeatsResults } from "../../src/families/swe/report.js";
import { SWE_STATUSES } from "../../src/swe/status.js";
import { formatReport } from "../../src/report/text.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { gitgood } from "../helpers/cli.js";
import { rec, writeRun } from "./records.js";

const tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-swe-report-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const tests = (passed: number, total: number) => ({ passed, total, failed: Array.from({ length: total - passed }, (_, i) => `test_${i}`) });

function swe(id: string, repository: string, status: string, f2p: [number, number], p2p: [number, number], applied: string | null, repeat = 0): ResultRecord {
  const resolution = status === "resolved" ? "RESOLVED_FULL" : status === "partially_resolved" ? "RESOLVED_PARTIAL" : "RESOLVED_NO";
  return rec(id, "SWE", {
    repository,
    repeat,
    solved: status === "resolved",
    scores: {
      swe: { status, resolution, fail_to_pass: tests(...f2p), pass_to_pass: tests(...p2p), apply_strategy: applied, patch: "diff --git a/x b/x\n" },
    },
  });
}

const records = [
  swe("lib-1", "acme/lib", "resolved", [2, 2], [3, 3], "git apply"),
  swe("lib-2", "acme/lib", "partially_resolved", [1, 2], [3, 3], "patch -p1 --fuzz=3"),
  swe("lib-3", "acme/lib", "no_op", [0, 2], [3, 3], null),
  swe("web-1", "acme/web", "breaking_resolved", [1, 1], [1, 4], "git apply --ignore-whitespace"),
  swe("web-2", "acme/web", "env_invalid", [2, 2], [1, 1], null),
  rec("web-3", "SWE", { repository: "acme/web", status: "error", solved: false, verdict: "error", error: { code: "TIMEOUT", message: "slow" } }),
  rec("web-4", "SWE", { repository: "acme/web", solved: false, scores: { swe: { status: "great", fail_to_pass: "all" } } }),
  swe("web-5", "acme/web", "work_in_progress", [1, 3], [0, 0], "git apply --3way"),
];

describe("the SWE table", () => {
  it("gives resolved % and every status %, the F2P and P2P pass rates and the patch-applied rate per repository", () => {
    const rows = buildReport({ records }).swe;
    expect(rows.map((r) => [r.repository, r.instances, r.env_invalid, r.skipped])).toEqual([
      ["acme/lib", 3, 0, 0],
      ["acme/web", 3, 1, 1],
      ["total", 6, 1, 1],
    ]);
    const [lib, web, total] = rows;
    expect(lib?.rates).toEqual({
      resolved: 33.33, breaking_resolved: 0, partially_resolved: 33.33, work_in_progress: 0, regression: 0, no_op: 33.33, error: 0,
      fail_to_pass: 50, pass_to_pass: 100, patch_applied: 66.67,
    });
    // web-3 ended in a system error: counted as `error`, no test passing, no patch applied; an empty P2P list counts as passed.
    expect(web?.rates).toEqual({
      resolved: 0, breaking_resolved: 33.33, partially_resolved: 0, work_in_progress: 33.33, regression: 0, no_op: 0, error: 33.33,
      fail_to_pass: 44.44, pass_to_pass: 41.67, patch_applied: 66.67,
    });
    expect(total?.statuses).toEqual({ resolved: 1, breaking_resolved: 1, partially_resolved: 1, work_in_progress: 1, regression: 0, no_op: 1, error: 1 });
    const text = formatReport(buildReport({ records }));
    expect(text).toMatch(/^repository\s+instances\s+resolved\s+breaking_resolved\s+partially_resolved\s+work_in_progress\s+regression\s+no_op\s+error\s+F2P pass\s+P2P pass\s+applied\s+env_invalid\s+tampered$/m);
    expect(text).toMatch(/^acme\/lib\s+3\s+33\.33\s+0\.00\s+33\.33\s+0\.00\s+0\.00\s+33\.33\s+0\.00\s+50\.00\s+100\.00\s+66\.67\s+0\s+0$/m);
    // Without SWE attempts there is no SWE table, and no SWE row: the totals list the families the records come from.
    const plain = formatReport(buildReport({ records: [rec("c1", "IR")] }));
    expect(plain).not.toMatch(/^repository\s+instances\s+resolved/m);
    expect(plain).toMatch(/^MCR\s+0\s+-\s+-/m);
    expect(plain).not.toMatch(/^SWE\s/m);
  });
});

describe("the AgentBeats results document", () => {
  it("holds the EvalResult fractions 0..1, env_invalid and malformed records left out", () => {
    const doc = agentBeatsResults(records, "llm:tiny", "agent");
    expect(doc.participants).toEqual({ agent: "llm:tiny" });
    expect(doc.results).toHaveLength(1);
    const r = doc.results[0];
    expect(Object.keys(r ?? {})).toEqual([
      "total_instances", "resolved_pct", "breaking_resolved_pct", "partially_resolved_pct", "work_in_progress_pct", "regression_pct", "no_op_pct",
      "error_pct", "fail_to_pass_passed_pct", "pass_to_pass_passed_pct",
    ]);
    expect(r?.total_instances).toBe(6);
    for (const s of ["resolved", "breaking_resolved", "partially_resolved", "work_in_progress", "no_op", "error"] as const) expect(r?.[`${s}_pct`]).toBeCloseTo(1 / 6, 12);
    expect(r?.regression_pct).toBe(0);
    expect(SWE_STATUSES.reduce((a, s) => a + (r?.[`${s}_pct`] ?? 0), 0)).toBeCloseTo(1, 12);
    expect(r?.fail_to_pass_passed_pct).toBeCloseTo((1 + 0.5 + 0 + 1 + 0 + 1 / 3) / 6, 12);
    expect(r?.pass_to_pass_passed_pct).toBeCloseTo((1 + 1 + 1 + 0.25 + 0 + 1) / 6, 12);
  });

  it("has zero instances and zero fractions for a run without SWE records or with only invalid ones (no division by zero)", () => {
    const zero = {
      total_instances: 0, resolved_pct: 0, breaking_resolved_pct: 0, partially_resolved_pct: 0, work_in_progress_pct: 0, regression_pct: 0,
      no_op_pct: 0, error_pct: 0, fail_to_pass_passed_pct: 0, pass_to_pass_passed_pct: 0,
    };
    expect(agentBeatsResults([], "oracle", "agent")).toEqual({ participants: { agent: "oracle" }, results: [zero] });
    expect(agentBeatsResults([swe("x", "acme/lib", "env_invalid", [1, 1], [1, 1], null)], "llm:tiny", "purple").results).toEqual([zero]);
  });

  it("gives one EvalResult per repeat", () => {
    const doc = agentBeatsResults(
      [swe("a", "acme/lib", "resolved", [1, 1], [1, 1], "git apply"), swe("a", "acme/lib", "no_op", [0, 1], [1, 1], null, 1)],
      "llm:tiny",
      "agent",
    );
    expect(doc.results.map((r) => [r.total_instances, r.resolved_pct, r.no_op_pct])).toEqual([
      [1, 1, 0],
      [1, 0, 1],
    ]);
  });

  it("is written by 'gitgood report RUN --agentbeats FILE' and answers the leaderboard's DuckDB query", async () => {
    const run = path.join(tmp, "run");
    writeRun(run, records);
    const file = path.join(tmp, "agentbeats.json");
    const r = await gitgood(["report", run, "--agentbeats", file, "--participant", "purple"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`wrote ${file}\n`);
    expect(r.stdout).toMatch(/^SWE \(% of instances/m);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(agentBeatsResults(records, "llm:tiny", "purple"));

    const db = await DuckDBInstance.create(":memory:");
    const connection = await db.connect();
    try {
      const result = await connection.runAndReadAll(
        `SELECT t.participants.purple AS agent, r.total_instances AS instances, ROUND(r.resolved_pct * 100, 1) AS resolved,
                ROUND(r.pass_to_pass_passed_pct * 100, 1) AS p2p
         FROM read_json_auto('${file.replace(/'/g, "''")}') AS t, UNNEST(t.results) AS u(r)`,
      );
      expect(result.getRowObjectsJson()).toEqual([{ agent: "llm:tiny", instances: "6", resolved: 16.7, p2p: 70.8 }]);
    } finally {
      connection.closeSync();
      db.closeSync();
    }

    const empty = path.join(tmp, "empty-run");
    writeRun(empty, [], "oracle");
    const emptyFile = path.join(tmp, "empty.json");
    expect((await gitgood(["report", empty, "--agentbeats", emptyFile])).code).toBe(0);
    expect(JSON.parse(readFileSync(emptyFile, "utf8"))).toMatchObject({ participants: { agent: "oracle" }, results: [{ total_instances: 0, resolved_pct: 0 }] });
  });

  it("refuses in one line what it cannot do: several runs, a role without the document, several agents", async () => {
    const run = path.join(tmp, "run2");
    writeRun(run, records);
    expect(await gitgood(["report", run, "--participant", "agent"])).toEqual({ code: 2, stdout: "", stderr: "gitgood: --participant goes with --agentbeats\n" });
    const other = path.join(tmp, "run3");
    writeRun(other, records);
    const both = await gitgood(["report", run, other, "--agentbeats", path.join(tmp, "x.json")]);
    expect([both.code, both.stderr]).toEqual([2, "gitgood: --agentbeats takes one run directory; give it a single run\n"]);
    const memory = path.join(tmp, "run4");
    writeRun(memory, [...records, { ...swe("lib-1", "acme/lib", "resolved", [1, 1], [1, 1], "git apply"), agent: "llm:tiny+memory", key: "lib-1.SWE+memory" }]);
    const two = await gitgood(["report", memory, "--agentbeats", path.join(tmp, "y.json")]);
    expect([two.code, two.stderr]).toEqual([2, `gitgood: --agentbeats describes one agent, and ${memory} has llm:tiny, llm:tiny+memory\n`]);
  });
});
