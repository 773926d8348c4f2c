import { z } from "zod";
import { branchMemory } from "./branch.js";
import { commitMemory } from "./commit.js";
import { memoryContext } from "./context.js";
import { diffMemory } from "./history.js";
import { logMemory } from "./log.js";
import { mergeMemory } from "./merge.js";
import { windowText } from "./window.js";
import type { MemoryWorkspace } from "./memory-workspace.js";

/**
 * The memory operations as agent tools: a name, a description written for a model, a zod input
 * schema (`params` as a raw shape, `input` as the strict object), whether the operation only reads,
 * and a handler that takes an open workspace and returns the text to show the agent.
 */
export interface MemoryOperation<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  description: string;
  params: Shape;
  input: z.ZodObject<Shape>;
  readOnly: boolean;
  /** Carries the operation out on an open workspace; the text to show the agent. */
  run(workspace: MemoryWorkspace, args: z.infer<z.ZodObject<Shape>>): Promise<string>;
}

function operation<Shape extends z.ZodRawShape>(def: Omit<MemoryOperation<Shape>, "input">): MemoryOperation<Shape> {
  return { ...def, input: z.object(def.params).strict() };
}

const text = (what: string) => z.string().trim().min(1).describe(what);
const items = (what: string) => z.array(z.string().trim().min(1)).max(20).optional().describe(what);
const count = (what: string) => z.number().int().min(0).max(1_000_000).optional().describe(what);

const memoryCommit = operation({
  name: "memory_commit",
  description:
    "Save a checkpoint: record what you just achieved in your memory and commit all current file changes together with it. " +
    "Use it after each meaningful step, so that you (or someone else) can continue from here later.",
  params: {
    contribution: text("What this step achieved, in a few sentences."),
    summary: z.string().trim().min(1).optional().describe("Optional: a rewritten summary of all progress on this branch so far. By default the contribution is added to the previous summary."),
    milestones: items("Optional: milestones reached, added to the shared roadmap."),
    todos: items("Optional: tasks still to do, added to the shared roadmap."),
  },
  readOnly: false,
  run: async (ws, a) => {
    const r = await commitMemory(ws, { contribution: a.contribution, summary: a.summary, milestones: a.milestones, todos: a.todos });
    return `Committed entry #${r.entry} on branch ${r.branch} as ${r.commit.slice(0, 12)}.\nProgress so far:\n${r.summary}`;
  },
});

const memoryBranch = operation({
  name: "memory_branch",
  description:
    "Start a separate line of work (for example, to try an alternative approach) on a new branch with its own memory. " +
    "Pending memory is saved first; uncommitted file changes come along to the new branch.",
  params: {
    name: text("Name of the new branch (a valid git branch name)."),
    purpose: text("What this branch is for."),
  },
  readOnly: false,
  run: async (ws, a) => {
    const r = await branchMemory(ws, { name: a.name, purpose: a.purpose });
    return `Now on new branch ${r.branch} (from ${r.from}); its memory was opened in commit ${r.commit.slice(0, 12)}.`;
  },
});

const memoryMerge = operation({
  name: "memory_merge",
  description:
    "Bring a finished branch back into the current one. Shows that branch's memory first, then merges its files and memory in one merge commit. " +
    "Fails without changing anything if the files conflict or if there are uncommitted file changes.",
  params: {
    branch: text("The branch to merge into the current one."),
    outcome: text("What the merged branch achieved or concluded."),
    summary: z.string().trim().min(1).optional().describe("Optional: a rewritten progress summary for the current branch."),
  },
  readOnly: false,
  run: async (ws, a) => {
    const r = await mergeMemory(ws, { branch: a.branch, outcome: a.outcome, summary: a.summary });
    const kept = r.memoryConflicts.length > 0 ? `\nMemory files where both sides were kept: ${r.memoryConflicts.join(", ")}` : "";
    const done = `Merged ${r.branch} into ${r.into} as ${r.commit.slice(0, 12)} (entry #${r.entry}).${kept}`;
    return `${windowText(r.context, 0, Math.max(400, ws.contextLimit - done.length - 40))}\n---\n${done}`;
  },
});

const memoryContextOp = operation({
  name: "memory_context",
  description:
    "Read your memory. Without arguments: the goal, milestones, to-do list and every branch with its latest step. " +
    "With branch: that branch's purpose, progress and recent entries. With commit: one whole entry. With log: the latest trace records. " +
    "With metadata: one segment of the branch's facts (for example file_structure). Long answers are cut; use offset to read on.",
  params: {
    branch: z.string().trim().min(1).optional().describe("Branch to look at (default: the current branch)."),
    commit: z.string().trim().min(1).optional().describe("An entry number on the branch, or the id of a memory commit."),
    log: z.boolean().optional().describe("Show the end of the branch's trace."),
    metadata: z.string().trim().min(1).optional().describe("Name of a metadata segment to show."),
    count: count("How many entries (or trace lines) to show at once."),
    skip: count("How many of the newest entries (or trace lines) to skip, to look further back."),
    offset: count("Character offset to continue a cut answer from."),
  },
  readOnly: true,
  run: (ws, a) => memoryContext(ws, a),
});

const memoryLog = operation({
  name: "memory_log",
  description:
    "Note what you just observed, what you think about it, and what you are doing next. Cheap; use it often between checkpoints.",
  params: {
    observation: z.string().optional().describe("What you saw."),
    thought: z.string().optional().describe("What you conclude from it."),
    action: z.string().optional().describe("What you do next."),
  },
  readOnly: false,
  run: async (ws, a) => {
    const r = await logMemory(ws, a);
    return `Noted in the trace of ${r.branch} at ${r.timestamp}.`;
  },
});

const memoryDiff = operation({
  name: "memory_diff",
  description: "Show how your memory changed between two memory commits (or from one commit to now).",
  params: {
    from: text("The older memory commit."),
    to: z.string().trim().min(1).optional().describe("The newer memory commit (default: the current files)."),
    offset: count("Character offset to continue a cut answer from."),
  },
  readOnly: true,
  run: async (ws, a) => {
    const d = await diffMemory(ws, { from: a.from, to: a.to });
    return windowText(d === "" ? "(no differences)\n" : d, a.offset ?? 0, ws.contextLimit);
  },
});

/** Every memory operation offered to agents, in the order they are listed. */
export const MEMORY_OPERATIONS = [memoryContextOp, memoryLog, memoryCommit, memoryBranch, memoryMerge, memoryDiff] as const;
