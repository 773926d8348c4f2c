import { tokensOf } from "../runs/fields.js";
import type { ResultRecord } from "../runs/record.js";
import type { Trajectory } from "../runs/trajectory.js";
import type { Prices } from "../model/prices.js";
import { conversationOf, resultText } from "../report/conversation.js";
import { turnCost } from "./models.js";

/** The ATIF version the export writes (Harbor's agent trajectory format); the tests check it against that version's schema. */
export const ATIF_VERSION = "ATIF-v1.6";

type Json = Record<string, unknown>;

/** A tool call's arguments as an object (ATIF requires one): parsed JSON, else the text under `raw`. */
function argumentsObject(text: string): Json {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Json;
    return { value };
  } catch {
    return { raw: text };
  }
}

/** An agent step's metrics: the turn's tokens, and their cost when the prices are known. */
function metricsOf(usage: { prompt_tokens: number; completion_tokens: number }, costUsd: number | null): Json {
  return { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, ...(costUsd !== null ? { cost_usd: costUsd } : {}) };
}

/** When an event happened: the attempt's start plus the event's offset (null when either is unknown). */
function stamp(startedAt: string, atMs: number | null): string | undefined {
  const start = Date.parse(startedAt);
  if (atMs === null || Number.isNaN(start)) return undefined;
  return new Date(start + atMs).toISOString();
}

/**
 * An attempt as an ATIF trajectory: a system step (the llm agent's prompt, when gitgood wrote it), the
 * task as the user's step, then one agent step per turn with its tool calls, their results as the
 * step's observation, and the turn's tokens (and their cost, given the model's prices); gitgood's verdict
 * and scores in `extra`.
 */
export function atifTrajectory(
  runLabel: string,
  gitgoodVersion: string,
  record: ResultRecord,
  trajectory: Trajectory,
  model: string | null,
  prices: Prices | null = null,
): Json {
  const conv = conversationOf(trajectory);
  const steps: Json[] = [];
  const step = (fields: Json): void => {
    steps.push({ step_id: steps.length + 1, ...fields });
  };
  if (conv.system !== null) step({ source: "system", message: conv.system });
  step({ source: "user", message: conv.task, ...(stamp(record.started_at, 0) ? { timestamp: stamp(record.started_at, 0) } : {}) });
  let prompt = 0;
  let completion = 0;
  for (const turn of conv.turns) {
    if (turn.calls.length === 0 && turn.content === null && turn.notes.length > 0) {
      step({ source: "system", message: turn.notes.join("\n") });
      continue;
    }
    const previous = steps.at(-1);
    if (conv.nudge !== null && previous?.source === "agent" && !previous.tool_calls) step({ source: "user", message: conv.nudge });
    const timestamp = stamp(record.started_at, turn.at_ms);
    const extra: Json = {};
    if (turn.latency_ms !== null) extra.latency_ms = turn.latency_ms;
    if (turn.usage?.cached) extra.cached = true;
    if (turn.notes.length > 0) extra.notes = turn.notes;
    if (turn.usage) {
      prompt += turn.usage.prompt_tokens;
      completion += turn.usage.completion_tokens;
    }
    step({
      source: "agent",
      message: turn.content ?? "",
      ...(timestamp ? { timestamp } : {}),
      ...(model ? { model_name: model } : {}),
      ...(turn.calls.length > 0
        ? {
            tool_calls: turn.calls.map((c) => ({ tool_call_id: c.id, function_name: c.name, arguments: argumentsObject(c.arguments) })),
            observation: { results: turn.calls.map((c) => ({ source_call_id: c.id, content: resultText(c) })) },
          }
        : {}),
      ...(turn.usage ? { metrics: metricsOf(turn.usage, turnCost(turn.usage, prices)) } : {}),
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    });
  }
  const tokens = tokensOf(record);
  return {
    schema_version: ATIF_VERSION,
    session_id: `${runLabel}/${record.key}`,
    agent: {
      name: record.agent,
      version: gitgoodVersion,
      ...(model ? { model_name: model } : {}),
      ...(conv.tools ? { tool_definitions: conv.tools } : {}),
    },
    steps,
    final_metrics: {
      // Usage that was not measured (an A2A agent, a program that did not use the run's proxy) is null, not 0.
      total_prompt_tokens: tokens === null ? null : tokens.prompt || prompt,
      total_completion_tokens: tokens === null ? null : tokens.completion || completion,
      ...(record.cost_usd !== null ? { total_cost_usd: record.cost_usd } : {}),
      total_steps: steps.length,
    },
    extra: {
      gitgood: {
        sample_id: record.sample_id,
        scenario: record.scenario,
        repository: record.repository,
        verdict: record.verdict,
        solved: record.solved,
        status: record.status,
        error: record.error,
        scores: record.scores,
        duration_ms: record.duration_ms,
        history_probes: record.history_probes ?? null,
      },
    },
  };
}
