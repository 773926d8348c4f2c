import type { ScenarioKind } from "../scenarios/types.js";

const COMMON = `You are working in a Git repository inside a sandbox, through the tools you are given: they are
the only way to look at or change anything. Each tool takes a "reason" argument: say briefly why you call it.
Work step by step, check what a tool tells you, and fix your course when a tool reports an error. When the
task is complete, stop calling tools and reply with a short summary.`;

const TASKS: Record<ScenarioKind, string> = {
  mcr: `Your task: resolve a merge conflict the way the project's developers did. Two lines of development
were merged and git could not combine some of their changes; each conflict is a region between a
"<<<<<<<" and a ">>>>>>>" line, with one side's text above "=======" and the other side's below it. Resolve
the conflicts one at a time, in order, starting with conflict 0. For each one, look at it with enough
surrounding code to understand both changes, then replace the whole region (markers included) with the
code that belongs there: often a combination of both sides, sometimes one side. The text you give replaces
the region exactly as written, so include line breaks where the file needs them and leave out the markers.
Keep the file's style and indentation. After the last conflict the merge is committed for you.`,
  ir: `Your task: clean up a short chain of commits with an interactive rebase, as a careful developer would
before sharing them. Look at each commit's changes and message. Then write the rebase plan: keep, reorder,
combine (squash or fixup) or reword commits so that the history tells a clear story, each commit holding
one coherent change with a message that says what it does and why. Give every commit exactly one entry.
Then run the rebase. If the rebase stops on a conflict, resolve it with the conflict tools or abort.`,
  icc: `Your task: turn a set of uncommitted changes into a sensible series of commits. The changes are
shown as numbered hunks. Group hunks that belong to one logical change into a commit with a clear message
saying what it does and why, and commit the groups in an order that builds up naturally (for example,
helpers before their callers). After each commit the remaining hunks are numbered again, so look at the
list again before choosing the next hunks. Commit until nothing is left.`,
};

/** The system prompt of the llm agent for one scenario kind. */
export function systemPrompt(kind: ScenarioKind): string {
  return `${COMMON}\n\n${TASKS[kind]}`;
}

/** What the agent is told when it stops calling tools before the task is done. */
export const NOT_DONE_YET = `The task is not finished yet. Continue with the tools; if you believe you are blocked,
explain why in one sentence and call the tool that shows the current state.`;

/** Added to the system prompt when the agent has the memory tools. */
export const MEMORY_NOTE = `You also have a versioned memory for this task (tools named memory_*): a roadmap, a running summary
of your progress, and a log of observations, thoughts and actions, kept in its own git repository (not the
project's). Record what you learn with memory_log, save checkpoints with memory_commit after meaningful steps,
and read memory_context when you need to recall where you are. Use memory_branch to try an alternative
approach and memory_merge to bring back what worked.`;
