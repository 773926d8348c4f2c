import { GitGoodError } from "../../errors.js";
import type { Strategy } from "../definition.js";
import { regionSides } from "../../git/markers.js";
import { Repo } from "../../git/repo.js";
import { readBlob } from "../../git/trees.js";
import { parsePath } from "../../git/paths.js";
import { conflictedContent } from "../shared/conflicts.js";
import { resolutionsOf } from "../shared/resolutions.js";
import { callOrFail } from "../shared/strategy.js";
import type { McrScenario } from "./scenario.js";

/**
 * Resolves every conflict region to the text the recorded merge has there, read from the source
 * repository (knowledge no agent has: the sandbox does not hold the merge).
 */
export const mcrOracle: Strategy<McrScenario> = {
  name: "oracle",
  description: "reproduces the recorded merge",
  async run(session) {
    session.beginTurn();
    const s = session.scenario;
    const merge = s.sample.scenario.merge_commit_hash;
    const source = await Repo.open(s.source);
    const texts: string[] = [];
    for (const f of s.conflicts.files) {
      const conflicted = conflictedContent(s.sandbox.workDir, f);
      const wanted = await readBlob(source, merge, parsePath(f.path));
      const parts = resolutionsOf(f, conflicted, wanted);
      if (!parts) {
        throw new GitGoodError(
          "ORACLE_FAILED",
          `the recorded ${f.path} cannot be reached by resolving its conflicts (text changed outside the regions, or content no tool argument can carry)`,
        );
      }
      texts.push(...parts);
    }
    for (const content of texts) await callOrFail(session, "ORACLE_FAILED", "resolve_current_merge_conflict_with", { content });
  },
};

type Side = "ours" | "theirs" | "union";

const DESCRIPTIONS: Record<Side, string> = {
  union: "every conflict resolved to both sides' lines, ours first (git's union driver)",
  ours: "every conflict resolved to HEAD's side",
  theirs: "every conflict resolved to MERGE_HEAD's side",
};

/** An MCR floor: every conflict resolved to one side, or to both sides' lines (ours first). */
function sideStrategy(side: Side): Strategy<McrScenario> {
  return {
    name: side,
    description: DESCRIPTIONS[side],
    async run(session) {
      session.beginTurn();
      const conflicts = (session.context.data.conflicts as { text: string }[] | undefined) ?? [];
      for (const c of conflicts) {
        const { ours, theirs } = regionSides(c.text);
        const content = side === "ours" ? ours : side === "theirs" ? theirs : ours + theirs;
        await callOrFail(session, "BASELINE_FAILED", "resolve_current_merge_conflict_with", { content });
      }
    },
  };
}

/** The MCR baselines; the first is MCR's part of the combined `baseline` agent. */
export const mcrBaselines: readonly Strategy<McrScenario>[] = [sideStrategy("union"), sideStrategy("ours"), sideStrategy("theirs")];
