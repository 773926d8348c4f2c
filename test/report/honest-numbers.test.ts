// Reports that say what they count: comparisons over the samples both runs attempted, "completed" beside
// "solved", unknown token usage shown as unknown in every format, and one line per distinct failure cause.
// Run directories and records built in code.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compareReports } from "../../src/report/compare.js";
import { reportCsv } from "../../src/report/csv.js";
import { buildReport } from "../../src/report/summary.js";
import { formatReport } from "../../src/report/text.js";
import { gitgood } from "../helpers/cli.js";
import { buildRunFixture } from "../helpers/runs.js";
import { rec, writeRun } from "./records.js";

const root = mkdtempSync(path.join(os.tmpdir(), "gitgood-honest-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("comparing runs over different samples", () => {
  // Run A attempted s1..s3 (solved all); run B attempted s2..s5 (solved none of s2, s3; s4 and s5 solved).
  const a = [rec("s1", "MCR"), rec("s2", "MCR"), rec("s3", "MCR")];
  const b = [rec("s2", "MCR", { solved: false }), rec("s3", "MCR", { solved: false }), rec("s4", "MCR"), rec("s5", "MCR")];

  it("rates only the pairs both runs attempted and says how many each has alone", () => {
    const c = compareReports([
      { label: "A", dir: "A", report: buildReport({ records: a }) },
      { label: "B", dir: "B", report: buildReport({ records: b }) },
    ]);
    expect(c.overlap).toEqual({ shared: 2, only: [1, 2] });
    const total = c.totals.find((row) => row.scenario === "total" || row.scenario === "MCR");
    expect(total, JSON.stringify(c.totals)).toBeDefined();
    // Over s2 and s3 only: A solved 2 of 2, B 0 of 2 (over all their samples B would show 2 of 4).
    const cells = JSON.stringify(total);
    expect(cells).toContain('"solve_rate":100');
    expect(cells).toContain('"solve_rate":0');
    expect(cells).not.toContain('"solve_rate":50');
  });

  it("`report A B` prints the warning with the shared count and each run's own", async () => {
    const dirA = path.join(root, "runA");
    const dirB = path.join(root, "runB");
    writeRun(dirA, a);
    writeRun(dirB, b);
    const r = await gitgood(["report", dirA, dirB]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "warning: the runs attempted different samples; the rates count only the 2 sample × scenario pair(s) every run attempted (attempted by one run and not all, left out: runA 1, runB 2)",
    );
  });
});

describe("what the report's columns and usage say", () => {
  const measured = rec("m1", "MCR", { tokens: { prompt: 10, completion: 5 }, usage_known: true });
  const unmeasured = rec("u1", "MCR", { agent: "a2a", tokens: { prompt: 0, completion: 0 }, usage_known: false, solved: false });

  it("names the rate columns completed and solved: a run that solved nothing reads 100 % completed, 0 % solved", () => {
    const text = formatReport(buildReport({ records: [rec("b1", "MCR", { solved: false }), rec("b2", "MCR", { solved: false })] }));
    const head = text.split("\n").find((l) => l.includes("completed"));
    expect(head, text).toMatch(/samples\s+completed\s+solved/);
    expect(text).not.toMatch(/\bsuccess\b.*\bsolve\b/);
  });

  it("shows unknown usage as unknown, never 0: text, JSON rows and CSV", () => {
    const report = buildReport({ records: [unmeasured] });
    expect(report.usage_unknown).toBe(1);
    const text = formatReport(report);
    expect(text).toMatch(/tokens: unknown/);
    expect(text).not.toMatch(/tokens: 0\b/);
    const row = report.samples[0];
    expect(row).toMatchObject({ tokens: null, prompt_tokens: null, completion_tokens: null, cost_usd: null });
    const [head, line] = reportCsv(report).split("\r\n");
    const cols = (head ?? "").split(",");
    const cells = (line ?? "").split(",");
    for (const col of ["tokens", "prompt_tokens", "completion_tokens"]) {
      expect(cols, col).toContain(col);
      expect(cells[cols.indexOf(col)], col).toBe("");
    }
  });

  it("counts known usage and names how many attempts are left out when some are unknown", () => {
    const text = formatReport(buildReport({ records: [measured, unmeasured] }));
    expect(text).toContain("tokens: 10 prompt + 5 completion (usage unknown for 1 attempt(s), not counted)");
  });
});

describe("an agent that asks no model", () => {
  it("records its usage as known and none (0 tokens), not unknown: the oracle's run", async () => {
    const { fx, samples } = await buildRunFixture();
    try {
      const file = path.join(root, "oracle-samples.jsonl");
      writeFileSync(file, samples.map((x) => `${JSON.stringify(x)}\n`).join(""));
      const out = path.join(root, "oracle-run");
      const r = await gitgood(["run", file, "--repo", fx.dir, "--agent", "oracle", "--scenario", "MCR", "--out", out]);
      expect(r.code, r.stderr).toBe(0);
      const records = readFileSync(path.join(out, "results.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { usage_known?: boolean; tokens: unknown });
      expect(records.length).toBeGreaterThan(0);
      for (const x of records) expect(x).toMatchObject({ usage_known: true, tokens: { prompt: 0, completion: 0 } });
      expect(r.stdout).toContain("tokens: 0 prompt + 0 completion");
    } finally {
      fx.remove();
    }
  }, 120_000);
});

describe("failure causes", () => {
  const envFail = "ENV_BUILD_FAILED";
  const offline = "environment set-up for msiemens/tinydb failed: ERROR: No matching distribution found for pytest-cov (hint: the set-up ran without the network; give a local index or set `network: true`)";
  const records = [
    rec("t1", "SWE", { status: "error", solved: null, verdict: "error", error: { code: envFail, message: offline } }),
    rec("t2", "SWE", { status: "error", solved: null, verdict: "error", error: { code: envFail, message: offline } }),
    rec("t3", "SWE", { status: "error", solved: null, verdict: "error", error: { code: "TIMEOUT", message: "the attempt ran out of its 60 s" } }),
    rec("t4", "SWE", { solved: true }),
  ];

  it("puts each distinct cause on one line, whole, with the attempts it hit", () => {
    const text = formatReport(buildReport({ records: records }));
    const lines = text.split("\n");
    const start = lines.indexOf("System errors, one line per distinct cause (code ×attempts (which): message)");
    expect(start, text).toBeGreaterThan(0);
    expect(lines.slice(start + 1, start + 3)).toEqual([
      `${envFail} ×2 (t1.SWE, t2.SWE): ${offline}`,
      "TIMEOUT ×1 (t3.SWE): the attempt ran out of its 60 s",
    ]);
    // The whole message, with what is missing, not a cut-off prefix.
    expect(text).toContain("`network: true`");
  });
});
