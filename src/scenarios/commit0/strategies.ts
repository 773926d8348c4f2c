import { GitGoodError } from "../../errors.js";
import { applyPatch } from "../../git/apply.js";
import { patchBetween } from "../../git/diff.js";
import type { Strategy } from "../definition.js";
import { callOrFail } from "../shared/strategy.js";
import type { Commit0Host } from "./types.js";

/**
 * The reference oracle: checks out the reference implementation of every file the skeleton changed
 * (read from the source repository: the sandbox holds nothing of it) and finishes. It reaches the
 * reference pass rate, which is every counted test.
 */
function referenceStrategy(name: string): Strategy<Commit0Host> {
  return {
    name,
    description: "COMMIT0: checks out the reference implementation (the oracle: reaches the reference pass rate)",
    async run(session) {
      session.beginTurn();
      const s = session.scenario;
      const sc = s.sample.scenario;
      const source = await s.openSource();
      const patch = await patchBetween(source, sc.base_commit, sc.reference_commit);
      const r = await applyPatch(s.sandbox.repo, Buffer.from(patch, "latin1"), "git apply");
      if (!r.applied) throw new GitGoodError("ORACLE_FAILED", `the reference of ${s.sample.id} does not apply to its skeleton: ${r.message}`, { sample: s.sample.id });
      await callOrFail(session, "ORACLE_FAILED", "finish", {});
    },
  };
}

export const commit0Oracle: Strategy<Commit0Host> = referenceStrategy("oracle");

/** The floor: the skeleton as it is (every stub left), finished at once. */
const skeleton: Strategy<Commit0Host> = {
  name: "skeleton",
  description: "COMMIT0: changes nothing and finishes (the floor: the skeleton's own pass rate)",
  async run(session) {
    session.beginTurn();
    await callOrFail(session, "BASELINE_FAILED", "finish", {});
  },
};

/** `skeleton` is COMMIT0's part of the combined `baseline` agent; `reference` is the oracle under the name commit0's tables use. */
export const commit0Baselines: readonly Strategy<Commit0Host>[] = [skeleton, referenceStrategy("reference")];
