import { z } from "zod";
import { defineTool, type Tool } from "../../tools/tool.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { currentIndex, locate, renderConflict, resolveCurrent, unresolvedCount, type ConflictState } from "./conflicts.js";

/** A scenario that has merge conflicts to resolve (MCR always, IR when a rebase step stops). */
export interface ConflictHost {
  readonly sandbox: Sandbox;
  /** The conflicts being resolved now; throws NO_CONFLICT (with the scenario's own explanation) if none. */
  activeConflicts(): ConflictState;
  /** Runs after each resolution; when none is left it finishes the stop. Returns what to tell the agent. */
  afterResolution(): Promise<string>;
}

const contextSize = z
  .number()
  .int()
  .min(0)
  .max(10_000)
  .describe("How many lines before and after the conflict region to show as well.");

export const VIEW_CURRENT = "view_current_merge_conflict_with";
const VIEW_AT = "view_merge_conflict_at";
export const RESOLVE_CURRENT = "resolve_current_merge_conflict_with";

export function conflictTools<S extends ConflictHost>(): Tool<S>[] {
  return [
    defineTool<S, { context_window_size: typeof contextSize }>({
      name: VIEW_CURRENT,
      description:
        "Shows the conflict you have to resolve next (the lowest-numbered unresolved one): its whole marker region " +
        "from the <<<<<<< line to the >>>>>>> line, with the requested number of surrounding lines. Lines starting " +
        "with [gitgood] are labels added by the tool, not file content. A conflicted symbolic link is shown as git " +
        "stores it: its target text, with every side's target.",
      params: { context_window_size: contextSize },
      readOnly: true,
      async run(s, args) {
        const state = s.activeConflicts();
        const index = currentIndex(state);
        if (index === null) return "All conflicts are resolved.";
        return renderConflict(locate(s.sandbox.workDir, state, index), state.conflicts.length, args.context_window_size);
      },
    }),
    defineTool<S, { conflict_index: z.ZodNumber; context_window_size: typeof contextSize }>({
      name: VIEW_AT,
      description:
        "Shows any conflict by its 0-based index, with the requested number of surrounding lines. For a conflict " +
        "already resolved it shows the text that replaced it. Only the current conflict can be resolved.",
      params: {
        conflict_index: z.number().int().min(0).describe("0-based index of the conflict, as listed at the start."),
        context_window_size: contextSize,
      },
      readOnly: true,
      async run(s, args) {
        const state = s.activeConflicts();
        return renderConflict(locate(s.sandbox.workDir, state, args.conflict_index), state.conflicts.length, args.context_window_size);
      },
    }),
    defineTool<S, { content: z.ZodString }>({
      name: RESOLVE_CURRENT,
      description:
        "Resolves the current conflict: its whole region, from the start of the <<<<<<< line through the line break " +
        "that ends the >>>>>>> line, is replaced by `content` exactly as given. Nothing is added or changed: end " +
        "`content` with a line break if the text after the region should start on a new line, use \\r\\n line " +
        "endings in a CRLF file, and pass an empty string to drop the region. For a conflicted symbolic link, " +
        "`content` is the link's new target. The next conflict becomes current; after the last one the work is committed.",
      params: { content: z.string().describe("The exact text that replaces the current conflict region.") },
      readOnly: false,
      moreWith: VIEW_CURRENT,
      async run(s, args) {
        const state = s.activeConflicts();
        const done = resolveCurrent(s.sandbox.workDir, state, args.content);
        const resolvedFile = state.files[state.conflicts[done]?.file ?? 0]?.path ?? "";
        const left = unresolvedCount(state);
        const head = `Resolved conflict ${done} in ${resolvedFile}; ${left} conflict(s) left.`;
        return `${head}\n${await s.afterResolution()}`.trimEnd();
      },
    }),
  ];
}

/** One line naming the current conflict, for answers after a resolution. */
export function nextConflictLine(workDir: string, state: ConflictState): string {
  const index = currentIndex(state);
  if (index === null) return "";
  const at = locate(workDir, state, index);
  return `The current conflict is now ${index} in ${at.path}; call ${VIEW_CURRENT} to see it.`;
}
