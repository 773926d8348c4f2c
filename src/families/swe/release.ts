import type { FamilyRelease } from "../definition.js";
import { DEFAULT_SWE_RUNS } from "../../swe/mine/flake-gate.js";

/**
 * SWE tasks in a dated release: mined as `gitgood mine --type swe` mines them, each candidate validated
 * with its pin's environment and the flake gate, then run by the release's gate with the same specs.
 */
export const SWE_RELEASE: FamilyRelease = {
  type: "swe",
  runs: DEFAULT_SWE_RUNS,
  rule:
    "mined as `gitgood mine --type swe` mines: a change dated by its commit's committer date (a merged branch by the merge commit's), its created_at; its tests run with the test change alone (the start) and with the whole change (the gold); when some test fails before and passes after, each side runs `runs` times, only tests with one outcome in every run count, and a candidate whose only fail-to-pass tests varied is dropped as `flaky`; in the gate a task counts as solved when its tests say resolved, after the runner's instance validation (FAIL_TO_PASS fail and PASS_TO_PASS pass at the start, the gold patch makes FAIL_TO_PASS pass)",
  async mine(input) {
    // The miner is loaded by `gitgood live build` alone, not by every process that lists the families.
    const { mineSwe } = await import("../../swe/mine/mine.js");
    const result = await mineSwe({
      repoPath: input.repoPath,
      name: input.name,
      since: input.since,
      until: input.until,
      runs: input.runs,
      jobs: input.jobs,
      swe: { envSpecs: input.envSpecs, watchSandbox: input.watchSandbox },
      onValidated: (e) => input.onStep?.(`[${e.done}/${e.total}] ${e.commit.slice(0, 12)} ${e.kept ? "kept" : `dropped: ${e.reason ?? ""}`}`),
    });
    const { candidates, validated, instances, dropped } = result.summary;
    return { samples: result.instances.map((i) => i.sample), summary: { candidates, validated, instances, dropped } };
  },
  settings: (testing) => ({ swe: { envSpecs: testing.envSpecs, watchSandbox: testing.watchSandbox } }),
};
