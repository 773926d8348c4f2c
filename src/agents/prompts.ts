import type { AnyScenarioDefinition } from "../scenarios/definition.js";

const COMMON = `You are working in a Git repository inside a sandbox, through the tools you are given: they are
the only way to look at or change anything. Each tool takes a "reason" argument: say briefly why you call it.
Work step by step, check what a tool tells you, and fix your course when a tool reports an error. When the
task is complete, stop calling tools and reply with a short summary.`;

/** The system prompt of the llm agent for one scenario: the common rules, then the scenario's task. */
export function systemPrompt(scenario: AnyScenarioDefinition): string {
  return `${COMMON}\n\n${scenario.prompt}`;
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
