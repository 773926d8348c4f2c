import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { mcpTool } from "../mcp/descriptors.js";
import type { Episode, StepOutcome } from "./episode.js";

/** Where every episode's task ends: how to submit. */
const SUBMIT_HINT = "When you are done, call finish_scenario to submit your work; the episode also ends when the task is complete.";

/** The task of an episode as its first observation shows it. */
export function taskText(episode: Episode): string {
  return `${episode.context.text}\n\n${SUBMIT_HINT}`;
}

/** The episode's actions as MCP tool descriptions (names, descriptions and input schemas as `gitgood mcp` lists them). */
export function toolList(episode: Episode): McpTool[] {
  return episode.tools().map(mcpTool);
}

/** What an ended episode tells about its score: the record's key, verdict and scores (the reward's grounds). */
export function endFacts(outcome: StepOutcome): Record<string, unknown> {
  const r = outcome.record;
  if (!r) return {};
  return { key: r.key, verdict: r.verdict, scores: r.scores, ...(r.error ? { record_error: r.error } : {}) };
}
