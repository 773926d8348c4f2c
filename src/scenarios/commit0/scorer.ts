import { evaluateCompletion } from "../../commit0/evaluate.js";
import { commit0OptionsOf } from "../../commit0/options.js";
import { skeletonBaseline } from "../../commit0/skeleton-baseline.js";
import type { RepoCompletionSample } from "../../dataset/sample.js";
import { rewardNamed, share, type Scorer } from "../../scoring/scorer.js";
import type { Commit0FinalState } from "./state.js";

/**
 * The `commit0` scorer, commit0's evaluation: the attempt's change is applied to the skeleton in a fresh
 * sandbox, the whole suite runs, and the counted tests that pass (passed or xfail; a missing test
 * failed) are counted: `{passed, total, pass_rate, runtime_s, …}`, beside what the untouched skeleton passes
 * (`skeleton`, measured once per task). Solved when every counted test passes. A failure of the evaluation
 * itself leaves the verdict open: it is not the agent's.
 */
export const commit0Scorer: Scorer<RepoCompletionSample, Commit0FinalState> = {
  name: "commit0",
  shapedRewards: [{ name: "pass_rate", description: "the share of the counted tests that pass" }],
  shape(value) {
    return rewardNamed("pass_rate", share(value["passed"], value["total"]));
  },
  async score(sample, final, ctx) {
    const patch = Buffer.from(final.patch, final.encoding === "base64" ? "base64" : "utf8");
    const opts = commit0OptionsOf(ctx.settings);
    const result = await evaluateCompletion(ctx.source, sample, patch, opts, ctx.signal);
    const skeleton = result.error ? null : await skeletonBaseline(ctx.source, sample, opts, ctx.signal);
    return {
      solved: result.error ? null : result.total > 0 && result.passed === result.total,
      value: { ...result, stubs_left: final.stubs_left, skeleton },
    };
  },
};
