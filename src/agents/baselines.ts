import type { ChainSample } from "../dataset/sample.js";
import { GitGoodError } from "../errors.js";
import { regionSides } from "../git/markers.js";
import type { ScenarioKind } from "../scenarios/types.js";
import type { Agent, AgentSession } from "./agent.js";

const REASON = "baseline strategy";

async function expectOk(session: AgentSession, tool: string, args: Record<string, unknown>): Promise<string> {
  const r = await session.call(tool, { ...args, reason: REASON });
  if (!r.ok) throw new GitGoodError("BASELINE_FAILED", `${tool} failed: ${r.output}`);
  return r.output;
}

type Side = "ours" | "theirs" | "union";

/** MCR floors: every conflict resolved to one side, or to both sides' lines (ours first), as git's union driver does. */
export class SideAgent implements Agent {
  readonly name: Side;

  constructor(private readonly side: Side) {
    this.name = side;
  }

  supports(kind: ScenarioKind): boolean {
    return kind === "mcr";
  }

  async run(session: AgentSession): Promise<void> {
    session.beginTurn();
    const conflicts = (session.context.data.conflicts as { text: string }[] | undefined) ?? [];
    for (const c of conflicts) {
      const { ours, theirs } = regionSides(c.text);
      const content = this.side === "ours" ? ours : this.side === "theirs" ? theirs : ours + theirs;
      await expectOk(session, "resolve_current_merge_conflict_with", { content });
    }
  }
}

/** Subjects that announce a fix-up of the commit before rather than a change of their own. */
const FIXUP_SUBJECT =
  /^(?:(?:fixup|squash|amend)!|(?:fix(?:ed|es)?\s+)?typos?\b|oops\b|wip\b|minor\b|nit\b|lint\b|format(?:ting)?\b|clean ?up\b|address(?:ed)? (?:review )?comments?\b|review comments?\b|small fix\b|fix build\b)/i;

export function isFixupSubject(subject: string): boolean {
  return FIXUP_SUBJECT.test(subject.trim());
}

/**
 * IR floors: `keep` picks every commit as it is; `squash-fixups` folds commits whose subject marks
 * them as fix-ups into the commit before and keeps the rest.
 */
export class RebaseAgent implements Agent {
  readonly name: "keep" | "squash-fixups";

  constructor(mode: "keep" | "squash-fixups") {
    this.name = mode;
  }

  supports(kind: ScenarioKind): boolean {
    return kind === "ir";
  }

  async run(session: AgentSession): Promise<void> {
    session.beginTurn();
    const commits = (session.context.data.commits as { message: string }[] | undefined) ?? [];
    const fold = (c: { message: string }, i: number): boolean =>
      this.name === "squash-fixups" && i > 0 && isFixupSubject(c.message.split("\n")[0] ?? "");
    const items = commits.map((c, i) => ({ commit_index: i, command: fold(c, i) ? "fixup" : "pick" }));
    await expectOk(session, "update_rebase_todo_list", { rebase_todo_list_items: items });
    await expectOk(session, "execute_rebase", {});
  }
}

/** ICC floors: everything in one commit, or one commit per file. */
export class CommitAgent implements Agent {
  readonly name: "one-commit" | "per-file";

  constructor(mode: "one-commit" | "per-file") {
    this.name = mode;
  }

  supports(kind: ScenarioKind): boolean {
    return kind === "icc";
  }

  async run(session: AgentSession): Promise<void> {
    session.beginTurn();
    const file = (session.sample as ChainSample).scenario.file;
    if (this.name === "per-file") {
      const hunks = (session.context.data.hunks as { id: number; path: string }[] | undefined) ?? [];
      const paths = [...new Set(hunks.map((h) => h.path))];
      // Hunks are renumbered after each commit: a hunk's number is its place among those left.
      let left = hunks.map((h) => h.id);
      for (const p of paths.slice(0, -1)) {
        const mine = new Set(hunks.filter((h) => h.path === p).map((h) => h.id));
        const ids = left.flatMap((id, place) => (mine.has(id) ? [place] : []));
        await expectOk(session, "commit_changes_in", { selected_hunks: ids, commit_message: `Update ${p}` });
        left = left.filter((id) => !mine.has(id));
      }
      if (!session.isDone()) {
        const last = paths.at(-1) ?? file;
        const rest = (session.context.data.other_files as string[] | undefined) ?? [];
        await expectOk(session, "commit_remaining_changes", {
          commit_message: rest.length > 0 ? `Update ${last} and ${rest.length} other file(s)` : `Update ${last}`,
        });
      }
      return;
    }
    await expectOk(session, "commit_remaining_changes", { commit_message: `Update ${file}` });
  }
}
