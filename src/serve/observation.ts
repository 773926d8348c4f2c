import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { mcpTool } from "../mcp/descriptors.js";
import { scenarioNamed, scenarios } from "../scenarios/registry.js";
import { shapedRewards, type ShapedReward } from "../scoring/scorer.js";
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

/**
 * What an ended episode tells about its score: the record's key, verdict and scores (the reward's grounds), and
 * the shaped partial rewards its scenario's scorers derive from those scores (none for an attempt that ended in
 * an error: its reward is 0 and nothing of it was measured).
 */
export function endFacts(outcome: StepOutcome): Record<string, unknown> {
  const r = outcome.record;
  if (!r) return {};
  const rewards = r.status === "error" ? {} : shapedRewards(scenarioNamed(r.scenario).scorers, r.scores);
  return { key: r.key, verdict: r.verdict, scores: r.scores, rewards, ...(r.error ? { record_error: r.error } : {}) };
}

/** The JSON schema of an ended episode's `rewards`: each shaped reward by name, with the scenarios that give it. */
export function shapedRewardsSchema(): Record<string, unknown> {
  const properties: Record<string, { type: "number"; minimum: 0; maximum: 1; description: string }> = {};
  const givenBy = new Map<string, string[]>();
  for (const [scenario, named] of Object.entries(shapedRewardNames())) {
    for (const r of named) {
      givenBy.set(r.name, [...(givenBy.get(r.name) ?? []), scenario]);
      properties[r.name] ??= { type: "number", minimum: 0, maximum: 1, description: r.description };
    }
  }
  for (const [name, by] of givenBy) {
    const p = properties[name];
    if (p) p.description = `${by.join(", ")}: ${p.description}`;
  }
  return {
    type: "object",
    description: "Shaped partial rewards of an ended episode, each in [0, 1], derived from its scores by its scenario's scorers (none after an error).",
    properties,
    additionalProperties: false,
  };
}

/** Every shaped reward the served scenarios can give, by scenario. */
export function shapedRewardNames(): Record<string, readonly ShapedReward[]> {
  const out: Record<string, readonly ShapedReward[]> = {};
  for (const d of scenarios()) {
    const named = d.scorers.flatMap((s) => s.shapedRewards ?? []);
    if (named.length > 0) out[d.name] = named;
  }
  return out;
}
