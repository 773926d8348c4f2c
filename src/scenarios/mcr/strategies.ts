import { GitGoodError } from "../../errors.js";
import type { Strategy } from "../definition.js";
import { regionSides } from "../../git/markers.js";
import { Repo } from "../../git/repo.js";
import { readBlob, stagedEntries, treeEntries } from "../../git/trees.js";
import { parsePath } from "../../git/paths.js";
import { conflictedContent } from "../shared/conflicts.js";
import { resolutionsOf } from "../shared/resolutions.js";
import { RESOLVE_CURRENT } from "../shared/conflict-tools.js";
import { callOrFail } from "../shared/strategy.js";
import type { McrHost } from "./types.js";
import { WRITE_FILE } from "./tools.js";

/** One step of the oracle's plan: a resolution of the current conflict, or a whole file written (extended tools). */
type Step =
  | { tool: typeof RESOLVE_CURRENT; args: { content: string } }
  | { tool: typeof WRITE_FILE; args: { relative_path_from_project_root: string; content: string } };

const REGULAR = new Set(["100644", "100755"]);

/** A file's bytes as a tool argument, or null when they are not UTF-8 (tool arguments are text). */
function asText(bytes: Buffer): string | null {
  const text = bytes.toString("utf8");
  return Buffer.from(text, "utf8").equals(bytes) ? text : null;
}

/**
 * The extended tools' way to the recorded merge: first every file without a conflict that the merge
 * changed is written whole, then each conflicted file, in conflict order, gets its region texts or,
 * where the merge also changed text outside the regions, its whole recorded content. Null when even
 * these tools cannot get there (a file deleted, a mode changed, bytes no text argument carries).
 */
async function extendedPlan(s: McrHost, source: Repo, merge: string): Promise<Step[] | null> {
  const recorded = await treeEntries(source, merge);
  const staged = await stagedEntries(s.sandbox.repo);
  const conflicted = new Set(s.conflicts.files.map((f) => f.path));
  const steps: Step[] = [];
  for (const p of staged.keys()) if (!conflicted.has(p) && !recorded.has(p)) return null;
  for (const [p, want] of recorded) {
    if (conflicted.has(p)) continue;
    const have = staged.get(p);
    if (have && have.oid === want.oid && have.mode === want.mode) continue;
    if (!REGULAR.has(want.mode) || want.mode !== (have?.mode ?? "100644")) return null;
    const bytes = await readBlob(source, merge, parsePath(p));
    const content = bytes === null ? null : asText(bytes);
    if (content === null) return null;
    steps.push({ tool: WRITE_FILE, args: { relative_path_from_project_root: p, content } });
  }
  for (const f of s.conflicts.files) {
    const wanted = await readBlob(source, merge, parsePath(f.path));
    const parts = resolutionsOf(f, conflictedContent(s.sandbox.workDir, f), wanted);
    if (parts) {
      steps.push(...parts.map((content) => ({ tool: RESOLVE_CURRENT, args: { content } }) as const));
      continue;
    }
    const mode = recorded.get(f.path)?.mode;
    const content = wanted === null ? null : asText(wanted);
    if (f.wholeFile || content === null || mode !== f.mode) return null;
    steps.push({ tool: WRITE_FILE, args: { relative_path_from_project_root: f.path, content } });
  }
  return steps;
}

/** The published tools' way: every conflict region resolved to the recorded merge's text there. */
async function regionPlan(s: McrHost, source: Repo, merge: string): Promise<Step[]> {
  const steps: Step[] = [];
  for (const f of s.conflicts.files) {
    const conflicted = conflictedContent(s.sandbox.workDir, f);
    const wanted = await readBlob(source, merge, parsePath(f.path));
    const parts = resolutionsOf(f, conflicted, wanted);
    if (!parts) {
      throw new GitGoodError(
        "ORACLE_FAILED",
        `the recorded ${f.path} cannot be reached by resolving its conflicts (content no tool argument can carry)`,
      );
    }
    steps.push(...parts.map((content) => ({ tool: RESOLVE_CURRENT, args: { content } }) as const));
  }
  return steps;
}

/**
 * Reproduces the recorded merge, reading it from the source repository (knowledge no agent has: the
 * sandbox does not hold the merge). With the published tools it resolves every conflict region to the
 * merge's text there; a merge those tools cannot reproduce (not resolvable) is left alone, so the
 * attempt ends unsolved, with the reason in its score, rather than as an error. With the extended
 * tools it also writes what the merge changed outside the regions.
 */
export const mcrOracle: Strategy<McrHost> = {
  name: "oracle",
  description: "reproduces the recorded merge (where the tools can: see --mcr-tools)",
  async run(session) {
    session.beginTurn();
    const s = session.scenario;
    const merge = s.sample.scenario.merge_commit_hash;
    const source = await s.openSource();
    let steps: Step[] | null;
    if (s.resolvable) steps = await regionPlan(s, source, merge);
    else steps = s.toolSet === "extended" ? await extendedPlan(s, source, merge) : null;
    if (steps === null) return;
    for (const step of steps) await callOrFail(session, "ORACLE_FAILED", step.tool, step.args);
  },
};

type Side = "ours" | "theirs" | "union";

const DESCRIPTIONS: Record<Side, string> = {
  union: "every conflict resolved to both sides' lines, ours first (git's union driver)",
  ours: "every conflict resolved to HEAD's side",
  theirs: "every conflict resolved to MERGE_HEAD's side",
};

/** An MCR floor: every conflict resolved to one side, or to both sides' lines (ours first). */
function sideStrategy(side: Side): Strategy<McrHost> {
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
export const mcrBaselines: readonly Strategy<McrHost>[] = [sideStrategy("union"), sideStrategy("ours"), sideStrategy("theirs")];
