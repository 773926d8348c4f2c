import { describe, expect, it } from "vitest";
import { Budget, budgetOf } from "../../src/runs/budget.js";
import { rec } from "../report/records.js";

describe("the budget's gate", () => {
  it("closes on an attempt of unknown cost: what is not measured is not taken as free", () => {
    const budget = new Budget(100);
    expect(budget.admit()).toBe(true);
    budget.add(rec("a", "MR", { cost_usd: null, usage_known: false }), true);
    expect(budget.admit()).toBe(false);
    expect(budget.stopLine()).toBe("1 attempt(s) not started: 1 attempt(s) had an unknown cost; run the same command with a higher --budget-usd (or none) to run them");
  });

  it("counts running attempts at the mean measured cost", () => {
    const budget = new Budget(10);
    budget.add(rec("a", "MR", { cost_usd: 4 }));
    expect(budget.admit()).toBe(true); // 4 spent, none running
    expect(budget.admit()).toBe(true); // 4 spent + one running at 4 = 8 < 10
    expect(budget.admit()).toBe(false); // 4 spent + two running = 12
    expect(budget.notStarted).toBe(1);
    budget.add(rec("b", "MR", { cost_usd: 4 }), true);
    expect(budget.admit()).toBe(false); // 8 spent + one running = 12
  });

  it("is absent when the spec sets none", () => {
    expect(budgetOf({})).toBeNull();
    expect(budgetOf({ budget_usd: 2 })?.capUsd).toBe(2);
  });
});
