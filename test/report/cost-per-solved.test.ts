import { describe, expect, it } from "vitest";
import { costPerSolved } from "../../src/report/cost-per-solved.js";
import { buildReport } from "../../src/report/summary.js";
import { usageParts } from "../../src/report/text.js";
import { attemptSpend } from "../../src/runs/budget.js";
import { rec } from "./records.js";

describe("cost per solved task", () => {
  // Costs 1, 3, 2, 2 (the third with a judge's 0.5 of its 2); solved, solved, not, solved: R = 8 / 3.
  const records = [
    rec("a", "MR", { cost_usd: 1, solved: true }),
    rec("b", "MR", { cost_usd: 3, solved: true }),
    rec("c", "MR", { cost_usd: 1.5, judge_cost_usd: 0.5, solved: false }),
    rec("d", "MR", { cost_usd: 2, solved: true }),
  ];

  it("is the ratio estimator with its delta-method 95% interval (values worked by hand)", () => {
    const per = costPerSolved(records)!;
    expect(per).toMatchObject({ attempts: 4, solved: 3 });
    expect(per.usd).toBeCloseTo(8 / 3, 5);
    expect(per.low).toBeCloseTo(0.623768, 5);
    expect(per.high).toBeCloseTo(4.709566, 5);
    const text = usageParts(buildReport({ records })).join(", ");
    expect(text).toContain("per solved task $2.6667 (95% CI $0.6238-$4.7096)");
  });

  it("leaves out attempts whose cost is not known, and is absent when nothing priced was solved", () => {
    const unpriced = rec("e", "MR", { cost_usd: null, solved: true });
    const unknownJudge = rec("f", "MR", { cost_usd: 1, judge_cost_usd: null, solved: true });
    expect(attemptSpend(unpriced)).toBeNull();
    expect(attemptSpend(unknownJudge)).toBeNull();
    expect(costPerSolved([...records, unpriced, unknownJudge])).toEqual(costPerSolved(records));
    expect(costPerSolved([rec("g", "MR", { cost_usd: 1, solved: false }), rec("h", "MR", { cost_usd: 1, solved: false })])).toBeNull();
    expect(buildReport({ records: [unpriced] }).cost_per_solved).toBeNull();
  });

  it("counts an agent that asked no model as spending nothing, and one whose usage is unknown as unknown", () => {
    expect(attemptSpend(rec("o", "MR", { cost_usd: null, tokens: { prompt: 0, completion: 0 } }))).toBe(0);
    expect(attemptSpend(rec("x", "MR", { cost_usd: null, usage_known: false, tokens: { prompt: 0, completion: 0 } }))).toBeNull();
  });

  it("is a known $0 for an agent that asked no model, priced or not", () => {
    const none = { cost_usd: null, tokens: { prompt: 0, completion: 0 } };
    expect(costPerSolved([rec("o", "MR", { ...none, solved: true }), rec("p", "MR", { ...none, solved: false })])).toEqual({ usd: 0, low: 0, high: 0, attempts: 2, solved: 1 });
  });
});
