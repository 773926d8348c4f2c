import { z } from "zod";
import { GitGoodError } from "../../errors.js";
import { readCommit } from "../../git/commits.js";
import { commitDiff } from "../../git/diff.js";
import { ToolRegistry } from "../../tools/registry.js";
import { defineTool } from "../../tools/tool.js";
import { conflictTools } from "../shared/conflict-tools.js";
import { renderTodo } from "./context.js";
import type { IrHost } from "./types.js";
import { TodoItemSchema, validateTodo } from "./todo.js";

const commitIndex = z.number().int().min(0).describe("0-based index of the commit in the chain (0 is the oldest).");
const items = z.array(TodoItemSchema).describe("The whole new todo list, in the order the rebase should apply it.");

export const IR_TOOLS = new ToolRegistry<IrHost>([
  defineTool<IrHost, Record<string, never>>({
    name: "view_rebase_todo",
    description: "Shows the current rebase todo list: one line per commit with its command, and where the rebase stands.",
    params: {},
    readOnly: true,
    async run(s) {
      return renderTodo(s);
    },
  }),
  defineTool<IrHost, { commit_index: typeof commitIndex }>({
    name: "show_changes_in",
    description: "Shows one commit of the chain: its author, date, full message and the patch it introduces.",
    params: { commit_index: commitIndex },
    readOnly: true,
    async run(s, args) {
      const c = s.chain.commits[args.commit_index];
      if (!c) {
        throw new GitGoodError(
          "INDEX_OUT_OF_RANGE",
          `there is no commit ${args.commit_index}: commit indices run from 0 to ${s.chain.commits.length - 1}`,
        );
      }
      const info = await readCommit(s.sandbox.repo, c.oid);
      const diff = await commitDiff(s.sandbox.repo, c.oid);
      return `commit ${args.commit_index}: ${c.oid}\nAuthor: ${info.author.name} <${info.author.email}>\nDate:   ${info.committedIso}\n\n${info.message}\n\n${diff}`.trimEnd();
    },
  }),
  defineTool<IrHost, { rebase_todo_list_items: typeof items }>({
    name: "update_rebase_todo_list",
    description:
      "Replaces the whole todo list. Give exactly one item per commit; the list order is the new commit order. " +
      "Commands: pick, drop, fixup, fixup -C, squash, reword; commit_msg is required for squash and reword and " +
      "not allowed otherwise. An invalid list is rejected with every problem named, and the old list is kept.",
    params: { rebase_todo_list_items: items },
    readOnly: false,
    moreWith: "view_rebase_todo",
    async run(s, args) {
      s.requirePlanning("change the todo list");
      s.setTodo(validateTodo(args.rebase_todo_list_items, s.chain.commits.length));
      return `The todo list was updated.\n${renderTodo(s)}`;
    },
  }),
  defineTool<IrHost, Record<string, never>>({
    name: "execute_rebase",
    description:
      "Runs the rebase with the current todo list. If a step conflicts, the rebase stops and the conflict tools " +
      "apply (view_current_merge_conflict_with, view_merge_conflict_at, resolve_current_merge_conflict_with), or " +
      "abort_rebase goes back to the paused start.",
    params: {},
    readOnly: false,
    moreWith: "view_current_merge_conflict_with",
    async run(s) {
      return s.execute();
    },
  }),
  defineTool<IrHost, Record<string, never>>({
    name: "abort_rebase",
    description:
      "While the rebase is stopped on a conflict: abandons it and returns to the start, paused before the first " +
      "step, keeping the todo list so it can be changed and executed again.",
    params: {},
    readOnly: false,
    async run(s) {
      return s.abort();
    },
  }),
  ...conflictTools<IrHost>(),
]);
