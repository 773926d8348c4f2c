import type { Strategy } from "../definition.js";
import { callOrFail } from "../shared/strategy.js";
import type { IrHost } from "./types.js";

/** Replays the original history: every commit picked as it was. */
export const irOracle: Strategy<IrHost> = {
  name: "oracle",
  description: "picks every commit as it was (the original history)",
  async run(session) {
    session.beginTurn();
    const items = session.scenario.chain.commits.map((_, i) => ({ commit_index: i, command: "pick" }));
    await callOrFail(session, "ORACLE_FAILED", "update_rebase_todo_list", { rebase_todo_list_items: items });
    await callOrFail(session, "ORACLE_FAILED", "execute_rebase", {});
  },
};

/** Subjects that announce a fix-up of the commit before rather than a change of their own. */
const FIXUP_SUBJECT =
  /^(?:(?:fixup|squash|amend)!|(?:fix(?:ed|es)?\s+)?typos?\b|oops\b|wip\b|minor\b|nit\b|lint\b|format(?:ting)?\b|clean ?up\b|address(?:ed)? (?:review )?comments?\b|review comments?\b|small fix\b|fix build\b)/i;

function isFixupSubject(subject: string): boolean {
  return FIXUP_SUBJECT.test(subject.trim());
}

/** An IR floor: `keep` picks every commit; `squash-fixups` folds commits whose subject marks a fix-up into the one before. */
function rebaseStrategy(mode: "keep" | "squash-fixups"): Strategy<IrHost> {
  return {
    name: mode,
    description: mode === "keep" ? "picks every commit as it is" : "folds commits whose subject announces a fix-up into the commit before",
    async run(session) {
      session.beginTurn();
      const commits = (session.context.data.commits as { message: string }[] | undefined) ?? [];
      const fold = (c: { message: string }, i: number): boolean =>
        mode === "squash-fixups" && i > 0 && isFixupSubject(c.message.split("\n")[0] ?? "");
      const items = commits.map((c, i) => ({ commit_index: i, command: fold(c, i) ? "fixup" : "pick" }));
      await callOrFail(session, "BASELINE_FAILED", "update_rebase_todo_list", { rebase_todo_list_items: items });
      await callOrFail(session, "BASELINE_FAILED", "execute_rebase", {});
    },
  };
}

/** The IR baselines; the first is IR's part of the combined `baseline` agent. */
export const irBaselines: readonly Strategy<IrHost>[] = [rebaseStrategy("squash-fixups"), rebaseStrategy("keep")];
