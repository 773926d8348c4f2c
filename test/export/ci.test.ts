import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { afterAll, describe, expect, it } from "vitest";
import { csvField, CSV_COLUMNS } from "../../src/report/csv.js";
import { gitgood } from "../helpers/cli.js";
import { rec, writeRun } from "../report/records.js";
import { junitValidator } from "./schemas.js";

const tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-ci-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const run = path.join(tmp, "run");
writeRun(run, [
  rec("acme_merge_0000", "MCR", { solved: true, duration_ms: 1500, cost_usd: 0.5, judge_tokens: { prompt: 7, completion: 3 }, judge_cost_usd: 0.0125 }),
  rec("=HYPERLINK(\"x\")", "MCR", { solved: false }),
  rec("acme_chain_0000", "IR", { solved: null, judge_tokens: { prompt: 4, completion: 1 }, judge_cost_usd: null }),
  rec("acme_chain_0001", "ICC", { status: "error", solved: false, verdict: "error", error: { code: "MODEL_ERROR", message: "the endpoint said <no> & \u0001 left" } }),
  rec("acme_merge_0000", "MCR", { solved: false, repeat: 1 }),
]);

describe("report --junit", () => {
  it("writes one test case per attempt: failures for unsolved, errors with their code for system errors, skipped for unjudged", async () => {
    const file = path.join(tmp, "junit.xml");
    const r = await gitgood(["report", run, "--junit", file]);
    expect(r.code).toBe(0);
    const xml = readFileSync(file, "utf8");
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "", isArray: (n) => n === "testsuite" || n === "testcase" }).parse(xml);
    const root = doc.testsuites;
    expect(root).toMatchObject({ tests: "5", failures: "2", errors: "1" });
    // Valid against Jenkins' JUnit schema (kept as data), and the check can fail.
    const validate = junitValidator();
    expect(validate(xml)).toEqual([]);
    expect(validate(xml.replace("<testsuites ", '<testsuites skipped="1" ').replace('time="1.500"', 'time="1.5s"').replace("<testcase ", "<testcase><surprise/></testcase><testcase "))).toHaveLength(3);
    const suites = root.testsuite as Record<string, string>[];
    expect(suites.reduce((n, s) => n + Number(s.skipped), 0)).toBe(1);
    const cases = root.testsuite.flatMap((s: { testcase: unknown[] }) => s.testcase) as Record<string, unknown>[];
    expect(cases).toHaveLength(5);
    const error = cases.find((c) => c.error) as { error: { type: string; message: string } };
    expect(error.error.type).toBe("MODEL_ERROR");
    expect(error.error.message).toBe("the endpoint said <no> & \uFFFD left");
    expect(cases.map((c) => c.name)).toContain("acme_merge_0000 #1");
    expect(cases.find((c) => c.name === "acme_merge_0000")).toMatchObject({ time: "1.500" });
  });
});

describe("report --csv", () => {
  it("writes a header and one RFC 4180 line per attempt, defusing formula-like text", async () => {
    const file = path.join(tmp, "runs.csv");
    const r = await gitgood(["report", run, "--csv", file]);
    expect(r.code).toBe(0);
    const lines = readFileSync(file, "utf8").split("\r\n");
    // Python's csv module, strict, reads it back (an independent RFC 4180 reader): every row has the header's fields.
    const py = spawnSync("python3", ["-c", "import csv,json,sys\nrows=list(csv.reader(open(sys.argv[1],newline=''),strict=True))\nprint(json.dumps(rows))", file], { encoding: "utf8" });
    expect(py.stderr).toBe("");
    const rows = JSON.parse(py.stdout) as string[][];
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows).toHaveLength(6);
    expect(rows.every((r) => r.length === CSV_COLUMNS.length)).toBe(true);
    expect(rows.some((r) => r.includes("'=HYPERLINK(\"x\")"))).toBe(true);
    expect(lines[0]).toBe(CSV_COLUMNS.join(","));
    expect(lines.filter(Boolean)).toHaveLength(6);
    expect(lines.find((l) => l.includes("HYPERLINK"))).toContain(`"'=HYPERLINK(""x"")"`);
    // Usage as the JSON report has it: the agent's prompt and completion tokens, the judges' tokens and cost;
    // what a record does not say (no judge, no price) is an empty field where the JSON report has null.
    const column = (row: string[], name: string) => row[CSV_COLUMNS.indexOf(name as (typeof CSV_COLUMNS)[number])];
    const usage = new Map(rows.slice(1).map((row) => [column(row, "key"), ["tokens", "prompt_tokens", "completion_tokens", "cost_usd", "judge_tokens", "judge_cost_usd"].map((c) => column(row, c))]));
    expect(usage.get("acme_merge_0000.MCR")).toEqual(["15", "10", "5", "0.5", "10", "0.0125"]);
    expect(usage.get("acme_chain_0000.IR")).toEqual(["15", "10", "5", "", "5", ""]);
    expect(usage.get("acme_merge_0000.MCR#1")).toEqual(["15", "10", "5", "", "", ""]);
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField(-3)).toBe("-3");
    expect(csvField(null)).toBe("");
  });

  it("refuses --junit and --csv with several runs in one line", async () => {
    const r = await gitgood(["report", run, run + "-x", "--csv", path.join(tmp, "x.csv")]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--csv takes one run directory/);
  });
});
