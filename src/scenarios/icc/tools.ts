import { z } from "zod";
import { GitGoodError } from "../../errors.js";
import { ToolRegistry } from "../../tools/registry.js";
import { defineTool } from "../../tools/tool.js";
import { renderRemaining } from "./context.js";
import type { IccHost } from "./types.js";

const hunkRef = z.union([z.number().int().min(0), z.string().regex(/^HUNK-\d+$/)]);
const selectedHunks = z
  .array(hunkRef)
  .min(1)
  .describe("The hunks to commit, by their current numbers: 3 or \"HUNK-3\".");
const message = z.string().min(1).describe("The commit message: a subject line, optionally a blank line and a body.");

function hunkNumber(ref: z.infer<typeof hunkRef>): number {
  return typeof ref === "number" ? ref : Number(ref.slice("HUNK-".length));
}

function requireMessage(text: string): void {
  if (text.trim() === "") throw new GitGoodError("BAD_ARGUMENTS", "commit_message must not be blank");
}

async function afterCommit(s: IccHost, oid: string): Promise<string> {
  const head = `Committed ${oid}.`;
  if (s.isDone()) return `${head}\nEverything is committed. The task is finished.`;
  return `${head}\n${renderRemaining(s, await s.remaining())}`;
}

export const ICC_TOOLS = new ToolRegistry<IccHost>([
  defineTool<IccHost, { selected_hunks: typeof selectedHunks; commit_message: typeof message }>({
    name: "commit_changes_in",
    description:
      "Commits exactly the selected hunks with the given message; every other change stays uncommitted in the work " +
      "tree. Afterwards the hunks left are renumbered from HUNK-0 and listed.",
    params: { selected_hunks: selectedHunks, commit_message: message },
    readOnly: false,
    moreWith: "view_remaining_hunks",
    async run(s, args) {
      requireMessage(args.commit_message);
      const oid = await s.commitHunks(args.selected_hunks.map(hunkNumber), args.commit_message);
      return afterCommit(s, oid);
    },
  }),
  defineTool<IccHost, { commit_message: typeof message }>({
    name: "commit_remaining_changes",
    description: "Commits every change not yet committed, in all files, with the given message. This finishes the task.",
    params: { commit_message: message },
    readOnly: false,
    moreWith: "view_remaining_hunks",
    async run(s, args) {
      requireMessage(args.commit_message);
      return afterCommit(s, await s.commitRest(args.commit_message));
    },
  }),
  defineTool<IccHost, Record<string, never>>({
    name: "view_remaining_hunks",
    description: "Lists the hunks not yet committed, with their current numbers (an addition to the published tools).",
    params: {},
    readOnly: true,
    async run(s) {
      return renderRemaining(s, await s.remaining());
    },
  }),
]);
