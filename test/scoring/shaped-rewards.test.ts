import { describe, expect, it } from "vitest";
import { scenarioNamed } from "../../src/scenarios/registry.js";
import { shapedRewards, share } from "../../src/scoring/scorer.js";

const rewardsOf = (scenario: string, scores: Record<string, unknown>): Record<string, number> => shapedRewards(scenarioNamed(scenario).scorers, scores);

describe("shaped partial rewards", () => {
  it("MCR: the share of the conflicted files that are byte-exact", () => {
    const files = [{ path: "a", exact: true }, { path: "b", exact: false }, { path: "c", exact: true }, { path: "d", exact: false }];
    expect(rewardsOf("MCR", { exact_match: { solved: false, files } })).toEqual({ files_exact: 0.5 });
    expect(rewardsOf("MCR", { exact_match: { solved: true, files: files.map((f) => ({ ...f, exact: true })) } })).toEqual({ files_exact: 1 });
    // No file compared (a value from elsewhere): no reward rather than a made-up one.
    expect(rewardsOf("MCR", { exact_match: { solved: false, files: [] } })).toEqual({});
  });

  it("IR and ICC: the share of the five history checks that hold, with or without a judge", () => {
    const clean = { finished: true, tree_matches_tip: true, empty_messages: 0, duplicate_messages: 0, empty_commits: 0, commits: 3, original_commits: 4 };
    expect(rewardsOf("IR", { checks: clean })).toEqual({ history_checks: 1 });
    expect(rewardsOf("ICC", { checks: { ...clean, tree_matches_tip: false, empty_messages: 2 }, judge: { solved: true } })).toEqual({ history_checks: 0.6 });
    expect(rewardsOf("IR", { checks: { ...clean, finished: false, tree_matches_tip: false, duplicate_messages: 1, empty_commits: 1, empty_messages: 1 } })).toEqual({ history_checks: 0 });
  });

  it("SWE: the shares of FAIL_TO_PASS and PASS_TO_PASS that pass (no PASS_TO_PASS listed counts as all passing)", () => {
    expect(rewardsOf("SWE", { swe: { fail_to_pass: { passed: 1, total: 4, failed: [] }, pass_to_pass: { passed: 9, total: 10, failed: [] } } })).toEqual({ fail_to_pass: 0.25, pass_to_pass: 0.9 });
    expect(rewardsOf("SWE", { swe: { fail_to_pass: { passed: 2, total: 2, failed: [] }, pass_to_pass: { passed: 0, total: 0, failed: [] } } })).toEqual({ fail_to_pass: 1, pass_to_pass: 1 });
    // An environment that could not be built measured nothing.
    expect(rewardsOf("SWE", { swe: { status: "ENV_INVALID", reason: "no python" } })).toEqual({});
  });

  it("COMMIT0: the pass rate of the counted tests", () => {
    expect(rewardsOf("COMMIT0", { commit0: { passed: 3, total: 12 } })).toEqual({ pass_rate: 0.25 });
    expect(rewardsOf("COMMIT0", { commit0: { passed: 0, total: 0 } })).toEqual({});
  });

  it("gives nothing for a scorer that failed, and reads hostile values without trusting their types", () => {
    expect(rewardsOf("MCR", { exact_match: { error: { code: "INTERNAL", message: "x" } } })).toEqual({});
    expect(rewardsOf("MCR", { exact_match: { files: "not a list" } })).toEqual({});
    expect(rewardsOf("COMMIT0", { commit0: { passed: "3", total: 4 } })).toEqual({});
    expect(rewardsOf("COMMIT0", { commit0: { passed: 9, total: 4 } })).toEqual({ pass_rate: 1 });
    expect(rewardsOf("IR", { checks: ["finished"] })).toEqual({});
    expect(share(Number.NaN, 2)).toBeUndefined();
    expect(share(1, Number.POSITIVE_INFINITY)).toBeUndefined();
  });

  it("names each reward once per scenario, so a record's rewards cannot collide", () => {
    for (const name of ["MCR", "IR", "ICC", "SWE", "COMMIT0"]) {
      const names = scenarioNamed(name).scorers.flatMap((s) => (s.shapedRewards ?? []).map((r) => r.name));
      expect(names.length).toBeGreaterThan(0);
      expect(new Set(names).size).toBe(names.length);
    }
  });
});
