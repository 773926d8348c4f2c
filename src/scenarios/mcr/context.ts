import { readCommit, type CommitInfo } from "../../git/commits.js";
import { VIEW_CURRENT } from "../shared/conflict-tools.js";
import { locate, renderConflict } from "../shared/conflicts.js";
import { lineAt } from "../shared/lines.js";
import type { InitialContext } from "../types.js";
import type { McrHost } from "./types.js";

interface Side {
  side: string;
  commit: string;
  date: string;
  subject: string;
}

function side(label: string, c: CommitInfo): Side {
  return { side: label, commit: c.oid, date: c.committedIso, subject: c.subject };
}

/** The temporal order of the two sides, the conflicted files and every conflict, as data and as text. */
export async function mcrContext(s: McrHost): Promise<InitialContext> {
  const [p1, p2] = s.sample.scenario.parents;
  const ours = await readCommit(s.sandbox.repo, p1);
  const theirs = await readCommit(s.sandbox.repo, p2);
  const a = side("HEAD (parent 1, the branch merged into)", ours);
  const b = side("MERGE_HEAD (parent 2, the branch merged in)", theirs);
  const seconds = (c: CommitInfo): number => Number(c.committer.date.split(" ")[0]);
  const ordered = seconds(ours) <= seconds(theirs) ? [a, b] : [b, a];
  const state = s.conflicts;
  const total = state.conflicts.length;
  const located = state.conflicts.map((_, i) => locate(s.sandbox.workDir, state, i));
  const conflicts = located.map((at) => ({
    index: at.index,
    file: at.path,
    first_line: lineAt(at.content, at.region.start),
    text: at.content.toString("utf8", at.region.start, at.region.end),
  }));
  const files = state.files.map((f) => f.path);
  const text: string[] = [
    `Merge conflict resolution for sample ${s.sample.id} (${s.sample.name}).`,
    `Commit ${p1} (HEAD) is being merged with ${p2}; git left ${total} conflict(s) in ${files.length} file(s).`,
    "The two sides, oldest first (committer dates):",
    ...ordered.map((x, i) => `  ${i + 1}. ${x.side}: ${x.commit.slice(0, 12)} ${x.date} ${JSON.stringify(x.subject)}`),
    `Files with conflicts, in the order the conflicts are numbered: ${files.join(", ")}`,
  ];
  if (s.notConflicted.length > 0) {
    text.push(`Listed in the sample but merged cleanly here: ${s.notConflicted.join(", ")}`);
  }
  text.push(
    `Resolve the conflicts in order, starting with conflict 0 (see ${VIEW_CURRENT}). All conflicts:`,
    "",
    ...located.map((at) => `${renderConflict(at, total, 0)}\n`),
  );
  return {
    data: {
      scenario: "mcr",
      sample_id: s.sample.id,
      merge_commit: s.sample.scenario.merge_commit_hash,
      sides_in_time_order: ordered,
      files,
      not_conflicted: [...s.notConflicted],
      conflicts,
    },
    text: text.join("\n").trimEnd(),
  };
}
