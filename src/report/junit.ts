import type { Report, SampleRow } from "./summary.js";

/** Text as XML 1.0 character data or attribute value: markup escaped, characters XML cannot hold replaced. */
function xmlText(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/\n/g, "&#10;")
    .replace(/\r/g, "&#13;")
    .replace(/\t/g, "&#9;");
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

/** A test case's name: the sample, the agent when the run has several, and the repeat when there are repeats. */
function caseName(row: SampleRow, manyAgents: boolean): string {
  return `${row.sample_id}${manyAgents ? ` [${row.agent}]` : ""}${row.repeat > 0 ? ` #${row.repeat}` : ""}`;
}

function testCase(row: SampleRow, manyAgents: boolean): string {
  const open = `    <testcase classname="gitgood.${xmlText(row.scenario)}" name="${xmlText(caseName(row, manyAgents))}" time="${seconds(row.duration_ms)}"`;
  const detail = `${row.repository}, ${row.difficulty}, ${row.turns} turn(s), ${row.tool_calls} tool call(s)`;
  if (row.status === "error") {
    const [code = "ERROR", ...rest] = (row.error ?? "ERROR: system error").split(": ");
    return `${open}>\n      <error type="${xmlText(code)}" message="${xmlText(rest.join(": ") || code)}">${xmlText(detail)}</error>\n    </testcase>`;
  }
  if (row.verdict === "unsolved") return `${open}>\n      <failure type="unsolved" message="not solved">${xmlText(detail)}</failure>\n    </testcase>`;
  if (row.verdict === "unjudged") return `${open}>\n      <skipped message="finished, not judged (no --judge)"/>\n    </testcase>`;
  return `${open}/>`;
}

/**
 * A run's report as a JUnit XML document: one test suite per scenario, one test case per attempt; an
 * unsolved attempt is a failure, a system error an error (its code the type), an unjudged one skipped.
 */
export function junitXml(report: Report, name: string): string {
  const manyAgents = report.agents.length > 1;
  const scenarios = [...new Set(report.samples.map((s) => s.scenario))];
  const count = (rows: readonly SampleRow[]) => ({
    tests: rows.length,
    failures: rows.filter((r) => r.status !== "error" && r.verdict === "unsolved").length,
    errors: rows.filter((r) => r.status === "error").length,
    skipped: rows.filter((r) => r.status !== "error" && r.verdict === "unjudged").length,
    time: seconds(rows.reduce((s, r) => s + r.duration_ms, 0)),
  });
  // The common JUnit schema (Jenkins' junit-10.xsd) has `skipped` on a suite, not on the whole document.
  const attrs = (c: ReturnType<typeof count>, root = false) =>
    `tests="${c.tests}" failures="${c.failures}" errors="${c.errors}"${root ? "" : ` skipped="${c.skipped}"`} time="${c.time}"`;
  const suites = scenarios.map((scenario) => {
    const rows = report.samples.filter((s) => s.scenario === scenario);
    return `  <testsuite name="${xmlText(`${name}.${scenario}`)}" ${attrs(count(rows))}>\n${rows.map((r) => testCase(r, manyAgents)).join("\n")}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xmlText(name)}" ${attrs(count(report.samples), true)}>\n${suites.join("\n")}${suites.length > 0 ? "\n" : ""}</testsuites>\n`;
}
