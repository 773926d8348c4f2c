import type { SweSample } from "../../dataset/sample.js";
import { share, type Scorer } from "../../scoring/scorer.js";
import { evaluatePatch } from "../../swe/evaluate.js";
import { patchFromAnswer, type PatchSource } from "../../swe/extract.js";
import { sweOptionsOf } from "../../swe/options.js";
import { ENV_INVALID } from "../../swe/status.js";
import type { SweFinalState } from "./state.js";

/** The patch a final state stands for: the work tree's change, else the one in the agent's text answer. */
async function patchOf(final: SweFinalState, extractWith: Parameters<typeof patchFromAnswer>[1], signal?: AbortSignal): Promise<{ patch: Buffer; source: PatchSource | "worktree" }> {
  if (final.patch !== "") return { patch: Buffer.from(final.patch, final.encoding === "base64" ? "base64" : "utf8"), source: "worktree" };
  if (final.answer === null) return { patch: Buffer.alloc(0), source: "none" };
  const found = await patchFromAnswer(final.answer, extractWith, signal);
  return { patch: Buffer.from(found.patch, "utf8"), source: found.source };
}

/**
 * The `swe` scorer: evaluates the attempt's patch in a fresh sandbox (src/swe/evaluate.ts) and records
 * `{status, resolution, fail_to_pass, pass_to_pass, apply_strategy, patch, tampered, tests_status,
 * timings, …}` (the evaluated patch, also when it came as text; the timings of set-up, agent,
 * environment, apply and tests); solved when the
 * resolution is RESOLVED_FULL. A failure of the evaluation pipeline is status `error` and leaves the
 * verdict open, and an instance that failed its validation is `env_invalid`: neither is the agent's.
 */
export const sweScorer: Scorer<SweSample, SweFinalState> = {
  name: "swe",
  shapedRewards: [
    { name: "fail_to_pass", description: "the share of the FAIL_TO_PASS tests that pass" },
    { name: "pass_to_pass", description: "the share of the PASS_TO_PASS tests that still pass (none listed: 1)" },
  ],
  shape(value) {
    const out: Record<string, number> = {};
    for (const list of ["fail_to_pass", "pass_to_pass"] as const) {
      const t = value[list];
      if (typeof t !== "object" || t === null) continue;
      const { passed, total } = t as { passed?: unknown; total?: unknown };
      const r = total === 0 && list === "pass_to_pass" ? 1 : share(passed, total);
      if (r !== undefined) out[list] = r;
    }
    return out;
  },
  async score(sample, final, ctx) {
    if (final.invalid !== null) return { solved: null, value: { status: ENV_INVALID, reason: final.invalid } };
    const options = sweOptionsOf(ctx.settings);
    const { patch, source } = await patchOf(final, options.extractWith ?? null, ctx.signal);
    const result = await evaluatePatch(ctx.source, sample, patch, options, ctx.signal);
    const timings = { ...(final.timings ?? {}), ...result.timings };
    return {
      solved: result.status === "error" ? null : result.resolution === "RESOLVED_FULL",
      value: { ...result, timings, patch_source: source },
    };
  },
};
