import { readCommits } from "../../git/commits.js";
import { commitDiffs } from "../../git/diff.js";
import type { InitialContext } from "../types.js";
import type { IrHost } from "./types.js";
import { at } from "../../util/at.js";

/** The todo list as the agent sees it. */
export function renderTodo(s: IrHost): string {
  const lines = s.todo.map((item, pos) => {
    const c = s.chain.commits[item.commit_index];
    const msg = item.commit_msg !== undefined ? `  -> new message ${JSON.stringify(item.commit_msg)}` : "";
    return `  ${String(pos).padStart(2)}. ${item.command.padEnd(8)} commit ${item.commit_index} ${c?.oid.slice(0, 12)} ${JSON.stringify(c?.subject ?? "")}${msg}`;
  });
  const phase =
    s.phase === "planning"
      ? "The rebase is paused before its first step; nothing has been applied yet."
      : s.phase === "conflict"
        ? `The rebase is stopped on a conflict while applying commit ${s.stoppedAt}.`
        : "The rebase has been executed.";
  return [`Rebase todo list (applied top to bottom):`, ...lines, phase].join("\n");
}

/** Every commit of the chain with its message and diff, and the starting todo list. */
export async function irContext(s: IrHost): Promise<InitialContext> {
  const oids = s.chain.commits.map((c) => c.oid);
  const [infos, diffs] = await Promise.all([readCommits(s.sandbox.repo, oids), commitDiffs(s.sandbox.repo, oids)]);
  const commits = oids.map((oid, index) => {
    const info = at(infos, index);
    return {
      commit_index: index,
      commit: oid,
      author: `${info.author.name} <${info.author.email}>`,
      date: info.committedIso,
      message: info.message,
      diff: at(diffs, index),
    };
  });
  const text = [
    `Interactive rebase for sample ${s.sample.id} (${s.sample.name}): ${commits.length} consecutive commits that all change ${s.sample.scenario.file}.`,
    `A rebase onto ${s.chain.base} is paused before its first step. Plan the todo list (one item per commit; list order is the new order), then execute it.`,
    "",
    ...commits.map(
      (c) => `=== commit ${c.commit_index}: ${c.commit} (${c.author}, ${c.date})\n${c.message}\n\n${c.diff.trimEnd()}\n`,
    ),
    renderTodo(s),
  ].join("\n");
  return {
    data: { scenario: "ir", sample_id: s.sample.id, file: s.sample.scenario.file, base: s.chain.base, commits, todo: [...s.todo] },
    text,
  };
}
