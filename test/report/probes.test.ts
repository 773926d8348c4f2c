import { describe, expect, it } from "vitest";
import { reportCsv } from "../../src/report/csv.js";
import { formatSkills, probeRates } from "../../src/report/skills.js";
import { buildReport } from "../../src/report/summary.js";
import { rec } from "./records.js";

/* The history-probe audit in reports: per-agent rate over the audited attempts, solved or not; older records left out. */

const records = [
  rec("a", "MCR", { agent: "cheat", solved: true, history_probes: { count: 2, commands: ["shell git reflog", "shell git fsck"] } }),
  rec("b", "MCR", { agent: "cheat", solved: false, history_probes: { count: 0, commands: [] } }),
  rec("a", "MCR", { agent: "honest", solved: false, history_probes: { count: 0, commands: [] } }),
  rec("b", "MCR", { agent: "honest", solved: true }),
];

describe("history probes in reports", () => {
  it("rates each agent over its audited attempts, solved or not", () => {
    expect(probeRates(records)).toEqual([
      { agent: "cheat", attempts: 2, probing: 1, probes: 2, rate: 0.5 },
      { agent: "honest", attempts: 1, probing: 0, probes: 0, rate: 0 },
    ]);
    expect(formatSkills(records)).toContain("cheat  1/2  50.0%  (2 probes)");
  });

  it("gives each attempt's count as a CSV column, empty for an older record", () => {
    const csv = reportCsv(buildReport({ records })).split("\r\n");
    const col = csv[0]?.split(",").indexOf("history_probes") ?? -1;
    expect(col).toBeGreaterThan(-1);
    expect(csv.slice(1, 5).map((l) => l.split(",")[col])).toEqual(expect.arrayContaining(["2", "0", "0", ""]));
  });
});
