import { GitGoodError } from "../../errors.js";
import { applyPatch } from "../../git/apply.js";
import type { Strategy } from "../definition.js";
import { callOrFail } from "../shared/strategy.js";
import type { SweHost } from "./types.js";

/**
 * The SWE oracle: applies the instance's gold patch to the work tree (knowledge no agent has: the
 * sandbox holds neither the fix nor any later commit) and finishes. It must reach `resolved` on every
 * valid instance.
 */
function goldStrategy(name: string): Strategy<SweHost> {
  return {
    name,
    description: "SWE: applies the instance's gold patch (the oracle: proves the evaluation reaches resolved)",
    async run(session) {
      session.beginTurn();
      const s = session.scenario;
      if (s.isDone()) return;
      const r = await applyPatch(s.sandbox.repo, s.sample.scenario.patch, "git apply");
      if (!r.applied) {
        throw new GitGoodError("PATCH_FAILED", `the gold patch of ${s.sample.id} does not apply at base_commit: ${r.message}`, { sample: s.sample.id });
      }
      await callOrFail(session, "ORACLE_FAILED", "finish", {});
    },
  };
}

export const sweOracle: Strategy<SweHost> = goldStrategy("oracle");

/** The SWE floor: changes nothing and finishes (its status is no_op on a valid instance). */
const empty: Strategy<SweHost> = {
  name: "empty",
  description: "SWE: changes nothing and finishes (the floor: no_op on every valid instance)",
  async run(session) {
    session.beginTurn();
    if (!session.scenario.isDone()) await callOrFail(session, "BASELINE_FAILED", "finish", {});
  },
};

/** `empty` is SWE's part of the combined `baseline` agent; `gold` is the oracle under its SWE name. */
export const sweBaselines: readonly Strategy<SweHost>[] = [empty, goldStrategy("gold")];
