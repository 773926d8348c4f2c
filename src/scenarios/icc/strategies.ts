import { readCommits } from "../../git/commits.js";
import { readBlobs } from "../../git/trees.js";
import type { Strategy } from "../definition.js";
import { callOrFail } from "../shared/strategy.js";
import type { IccHost } from "./types.js";

/**
 * True when `version` already holds a hunk's change: its added lines (blank ones aside) are there, or,
 * for a hunk that only removes lines, those lines are gone.
 */
function appliedIn(hunkText: string, version: string): boolean {
  const lines = new Set(version.split("\n"));
  const added: string[] = [];
  const removed: string[] = [];
  for (const l of Buffer.from(hunkText, "latin1").toString("utf8").split("\n")) {
    if (l.startsWith("+++") || l.startsWith("---")) continue;
    if (l.startsWith("+") && l.slice(1).trim() !== "") added.push(l.slice(1));
    else if (l.startsWith("-") && l.slice(1).trim() !== "") removed.push(l.slice(1));
  }
  if (added.length > 0) return added.every((l) => lines.has(l));
  return removed.length > 0 && removed.every((l) => !lines.has(l));
}

/**
 * Rebuilds the original commits: each hunk goes into the first original commit whose version of the
 * file already has it, with that commit's message; whatever is left goes into the last one. The
 * original commits are read from the source repository (the sandbox does not hold them).
 */
export const iccOracle: Strategy<IccHost> = {
  name: "oracle",
  description: "commits the hunks as the original commits did",
  async run(session) {
    session.beginTurn();
    const s = session.scenario;
    const file = s.sample.scenario.file;
    const source = await s.openSource();
    const oids = s.chain.commits.map((c) => c.oid);
    const [infos, versions] = await Promise.all([readCommits(source, oids), readBlobs(source, oids, file)]);
    for (const [i, info] of infos.entries()) {
      const { message } = info;
      if (i === s.chain.commits.length - 1) {
        if (!session.isDone()) await callOrFail(session, "ORACLE_FAILED", "commit_remaining_changes", { commit_message: message });
        return;
      }
      const version = versions[i]?.toString("utf8") ?? "";
      const left = await s.remaining();
      const chosen = left.hunks.filter((h) => h.path === file && appliedIn(h.text, version)).map((h) => h.id);
      if (chosen.length > 0) {
        await callOrFail(session, "ORACLE_FAILED", "commit_changes_in", { selected_hunks: chosen, commit_message: message });
      }
    }
  },
};

/** An ICC floor: one commit per file (in the order the hunks list them), or everything in one commit. */
function commitStrategy(mode: "per-file" | "one-commit"): Strategy<IccHost> {
  return {
    name: mode,
    description: mode === "per-file" ? "one commit per changed file" : "everything in one commit",
    async run(session) {
      session.beginTurn();
      const file = session.scenario.sample.scenario.file;
      if (mode === "one-commit") {
        await callOrFail(session, "BASELINE_FAILED", "commit_remaining_changes", { commit_message: `Update ${file}` });
        return;
      }
      const hunks = (session.context.data.hunks as { id: number; path: string }[] | undefined) ?? [];
      const paths = [...new Set(hunks.map((h) => h.path))];
      // Hunks are renumbered after each commit: a hunk's number is its place among those left.
      let left = hunks.map((h) => h.id);
      for (const p of paths.slice(0, -1)) {
        const mine = new Set(hunks.filter((h) => h.path === p).map((h) => h.id));
        const ids = left.flatMap((id, place) => (mine.has(id) ? [place] : []));
        await callOrFail(session, "BASELINE_FAILED", "commit_changes_in", { selected_hunks: ids, commit_message: `Update ${p}` });
        left = left.filter((id) => !mine.has(id));
      }
      if (!session.isDone()) {
        const last = paths.at(-1) ?? file;
        const rest = (session.context.data.other_files as string[] | undefined) ?? [];
        await callOrFail(session, "BASELINE_FAILED", "commit_remaining_changes", {
          commit_message: rest.length > 0 ? `Update ${last} and ${rest.length} other file(s)` : `Update ${last}`,
        });
      }
    },
  };
}

/** The ICC baselines; the first is ICC's part of the combined `baseline` agent. */
export const iccBaselines: readonly Strategy<IccHost>[] = [commitStrategy("per-file"), commitStrategy("one-commit")];
