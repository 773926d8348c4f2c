import type { InitialContext } from "../types.js";
import { renderHunk } from "./hunks.js";
import type { IccHost, Remaining } from "./types.js";

/** The hunks left to commit (and, with the default scope, the other files' changes), as text. */
export function renderRemaining(s: IccHost, left: Remaining): string {
  const lines: string[] = [];
  if (left.hunks.length > 0) {
    lines.push(`Hunks left to commit (${left.hunks.length}):`, "", ...left.hunks.map((h) => `${renderHunk(h)}\n`));
  } else if (left.files.length > 0) {
    lines.push("No hunks are left to choose.");
  } else {
    lines.push("Everything is committed.");
  }
  if (left.others.length > 0) {
    lines.push(
      `Changes in other files (${left.others.map((f) => f.path).join(", ")}) are not offered as hunks; ` +
        "commit_remaining_changes commits them together with anything else left.",
    );
  }
  return lines.join("\n").trimEnd();
}

export async function iccContext(s: IccHost): Promise<InitialContext> {
  const left = await s.remaining();
  const scope =
    s.scope === "all" ? "every changed file's hunks are offered" : `only the hunks of ${s.sample.scenario.file} are offered`;
  const text = [
    `Iterative committing for sample ${s.sample.id} (${s.sample.name}).`,
    `HEAD is at ${s.chain.base}; the work tree holds the changes of ${s.chain.commits.length} later commits, not yet committed (${scope}).`,
    "Commit them as a series of well-described commits: commit_changes_in commits the hunks you choose; the rest stay and are renumbered from HUNK-0. commit_remaining_changes commits everything left.",
    "",
    renderRemaining(s, left),
  ].join("\n");
  return {
    data: {
      scenario: "icc",
      sample_id: s.sample.id,
      file: s.sample.scenario.file,
      scope: s.scope,
      base: s.chain.base,
      hunks: left.hunks.map((h) => ({
        id: h.id,
        name: `HUNK-${h.id}`,
        path: h.path,
        status: h.status,
        text: Buffer.from(h.text, "latin1").toString("utf8"),
        note: h.note,
      })),
      other_files: left.others.map((f) => f.path),
    },
    text,
  };
}
