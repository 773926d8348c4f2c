import { z } from "zod";
import { GitGoodError } from "../../errors.js";
import { at } from "../../util/at.js";

/** The todo commands an agent may use, each with one spelling. */
export const TODO_COMMANDS = ["pick", "drop", "fixup", "fixup -C", "squash", "reword"] as const;
type TodoCommand = (typeof TODO_COMMANDS)[number];

const NEEDS_MESSAGE: ReadonlySet<TodoCommand> = new Set(["squash", "reword"]);
const FOLDS: ReadonlySet<TodoCommand> = new Set(["fixup", "fixup -C", "squash"]);

export const TodoItemSchema = z
  .object({
    commit_index: z.number().int().min(0).describe("0-based index of the commit, as listed by view_rebase_todo."),
    command: z
      .enum(TODO_COMMANDS)
      .describe(
        "pick: keep the commit; drop: remove it; fixup: fold it into the commit before, keeping that commit's " +
          "message; fixup -C: fold it in and use this commit's message; squash: fold it in with commit_msg as the " +
          "message of the combined commit; reword: keep it with commit_msg as its new message.",
      ),
    commit_msg: z
      .string()
      .nullish()
      .describe("The new commit message: required for squash and reword, not allowed for the other commands."),
  })
  .strict();

export interface TodoItem {
  commit_index: number;
  command: TodoCommand;
  commit_msg?: string;
}

/**
 * Checks a whole todo list against the chain of `count` commits and returns it normalised. Every
 * problem is named in one GitGoodError (BAD_TODO), so the agent can fix them all at once.
 */
export function validateTodo(items: ReadonlyArray<z.infer<typeof TodoItemSchema>>, count: number): TodoItem[] {
  const problems: string[] = [];
  if (items.length === 0) problems.push("the list is empty: give one item per commit (use drop to remove a commit)");
  const seen = new Map<number, number[]>();
  let kept = 0;
  items.forEach((item, pos) => {
    const what = `item ${pos} (${item.command} of commit ${item.commit_index})`;
    if (item.commit_index >= count) {
      problems.push(`${what}: there is no commit ${item.commit_index}; commit indices run from 0 to ${count - 1}`);
    }
    seen.set(item.commit_index, [...(seen.get(item.commit_index) ?? []), pos]);
    const msg = item.commit_msg ?? null;
    if (NEEDS_MESSAGE.has(item.command) && (msg === null || msg.trim() === "")) {
      problems.push(`${what}: commit_msg is required for ${item.command}`);
    }
    if (!NEEDS_MESSAGE.has(item.command) && msg !== null) {
      problems.push(`${what}: commit_msg is only allowed with squash and reword, not with ${item.command}`);
    }
    if (FOLDS.has(item.command) && kept === 0) {
      problems.push(`${what}: ${item.command} folds a commit into the one before it, but no kept commit comes before`);
    }
    if (item.command !== "drop") kept++;
  });
  for (const [index, positions] of seen) {
    if (positions.length > 1 && index < count) {
      problems.push(`commit ${index} appears ${positions.length} times (items ${positions.join(", ")}); give exactly one item per commit`);
    }
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !seen.has(i));
  if (missing.length > 0 && items.length > 0) {
    problems.push(`commit(s) ${missing.join(", ")} have no item; every commit needs exactly one (use drop to remove one)`);
  }
  if (problems.length > 0) {
    throw new GitGoodError("BAD_TODO", `the todo list was not changed: ${problems.join("; ")}`, { problems });
  }
  return items.map((i) =>
    NEEDS_MESSAGE.has(i.command)
      ? { commit_index: i.commit_index, command: i.command, commit_msg: i.commit_msg ?? "" }
      : { commit_index: i.commit_index, command: i.command },
  );
}

/**
 * Git's todo lines for the plan. A new message is never put on a command line: squash and reword
 * become fixup and pick followed by an `exec` that amends the message from a file, so quotes, line
 * breaks and any characters in messages reach git untouched. Returns the lines and the message files
 * to write (name → text).
 */
export function gitTodo(items: readonly TodoItem[], commits: readonly string[]): { text: string; messages: Map<string, string> } {
  const lines: string[] = [];
  const messages = new Map<string, string>();
  items.forEach((item, pos) => {
    const oid = at(commits, item.commit_index);
    const base = item.command === "reword" ? "pick" : item.command === "squash" ? "fixup" : item.command;
    lines.push(`${base} ${oid}`);
    if (item.commit_msg !== undefined) {
      const name = `message-${pos}.txt`;
      messages.set(name, item.commit_msg.endsWith("\n") ? item.commit_msg : `${item.commit_msg}\n`);
      lines.push(
        `exec git commit --amend --allow-empty --no-verify -q --cleanup=whitespace -F "$GITGOOD_MESSAGES/${name}"`,
      );
    }
  });
  return { text: `${lines.join("\n")}\n`, messages };
}
