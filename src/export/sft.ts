import { GitGoodError } from "../errors.js";
import { at } from "../util/at.js";
import type { ResultRecord } from "../runs/record.js";
import { attemptsOf, type RunRead } from "./attempts.js";
import { chatMessages, conversationOf, resultText, type Conversation } from "../report/conversation.js";

export const SFT_FORMATS = ["openai", "sharegpt"] as const;
export type SftFormat = (typeof SFT_FORMATS)[number];

/** Which attempts become training conversations. */
interface SftFilter {
  /** Only attempts the scorer solved (unsolved, unjudged and failed attempts are counted as `unsolved`). */
  solvedOnly?: boolean;
  /** Only these scenarios (registry names, any case). */
  scenarios?: readonly string[];
  /** Only these verdicts (solved, unsolved, unjudged, error). */
  verdicts?: readonly ResultRecord["verdict"][];
  /**
   * Only attempts whose judges agreed: every verdict of the attempt's pairwise scores (each judge, both
   * orders) names the same winner. Attempts without judge verdicts pass.
   */
  judgesAgree?: boolean;
}

/** What an SFT export wrote, and what it left out and why. */
interface SftResult {
  lines: string[];
  written: number;
  /** Attempts the other filters kept but `solvedOnly` left out: what including unsolved attempts would add. */
  unsolved: number;
  /** Attempts left out by the other filters (scenario, verdict, judges). */
  filtered: number;
  /** Attempts that passed the filter but have no readable trajectory. */
  without_trajectory: number;
  /** Attempts whose trajectory has no tool call and no model answer: nothing to learn from. */
  empty: number;
}

/** The winners the judges named for an attempt (`scores.*.verdicts[].winner`: agent, original, tie, invalid). */
function judgeWinners(record: ResultRecord): string[] {
  const out: string[] = [];
  for (const score of Object.values(record.scores)) {
    const verdicts = typeof score === "object" && score !== null ? (score as { verdicts?: unknown }).verdicts : undefined;
    if (!Array.isArray(verdicts)) continue;
    for (const v of verdicts) {
      const winner = typeof v === "object" && v !== null ? (v as { winner?: unknown }).winner : undefined;
      if (typeof winner === "string") out.push(winner);
    }
  }
  return out;
}

/** Whether the scenario, verdict and judge filters keep a record (`solvedOnly` is counted on its own). */
function keep(record: ResultRecord, filter: SftFilter): boolean {
  if (filter.scenarios && !filter.scenarios.some((s) => s.toLowerCase() === record.scenario.toLowerCase())) return false;
  if (filter.verdicts && !filter.verdicts.includes(record.verdict)) return false;
  if (filter.judgesAgree && new Set(judgeWinners(record)).size > 1) return false;
  return true;
}

/** OpenAI's fine-tuning layout: `messages` (system, user, assistant with `tool_calls`, tool) and `tools`. */
function openAiLine(conv: Conversation): unknown {
  return { messages: chatMessages(conv), ...(conv.tools ? { tools: conv.tools } : {}) };
}

/**
 * The ShareGPT layout as LLaMA-Factory reads it: `conversations` alternating human/observation and
 * gpt/function_call, `system`, and `tools` as JSON text. A turn's tool calls are one `function_call`
 * (a list when there are several), their results one `observation`.
 */
function shareGptLine(conv: Conversation, id: string): unknown {
  const turns: { from: string; value: string }[] = [{ from: "human", value: conv.task }];
  for (const turn of conv.turns) {
    if (turn.calls.length === 0 && turn.content === null) continue;
    const last = turns.at(-1);
    if (last && (last.from === "gpt" || last.from === "function_call")) turns.push({ from: "human", value: conv.nudge ?? "Continue." });
    if (turn.calls.length === 0) {
      turns.push({ from: "gpt", value: turn.content ?? "" });
      continue;
    }
    const calls = turn.calls.map((c) => {
      let args: unknown = c.arguments;
      try {
        args = JSON.parse(c.arguments);
      } catch {
        /* kept as the model wrote it */
      }
      return { name: c.name, arguments: args };
    });
    turns.push({ from: "function_call", value: JSON.stringify(calls.length === 1 ? calls[0] : calls) });
    turns.push({ from: "observation", value: turn.calls.length === 1 ? resultText(at(turn.calls, 0)) : JSON.stringify(turn.calls.map(resultText)) });
  }
  return {
    id,
    conversations: turns,
    ...(conv.system !== null ? { system: conv.system } : {}),
    ...(conv.tools ? { tools: JSON.stringify(conv.tools.map((t) => t.function)) } : {}),
  };
}

/** The training conversations of some runs' attempts, one JSON line each, in run and results order. */
export function sftExport(runs: readonly RunRead[], filter: SftFilter, format: SftFormat): SftResult {
  if (!SFT_FORMATS.includes(format)) throw new GitGoodError("BAD_OPTION", `unknown --format '${String(format)}'; the formats are ${SFT_FORMATS.join(", ")}`);
  const result: SftResult = { lines: [], written: 0, unsolved: 0, filtered: 0, without_trajectory: 0, empty: 0 };
  for (const run of runs) {
    for (const { record, trajectory } of attemptsOf(run)) {
      if (!keep(record, filter)) {
        result.filtered++;
        continue;
      }
      if (filter.solvedOnly && record.solved !== true) {
        result.unsolved++;
        continue;
      }
      if (!trajectory) {
        result.without_trajectory++;
        continue;
      }
      const conv = conversationOf(trajectory);
      if (!conv.turns.some((t) => t.calls.length > 0 || t.content !== null)) {
        result.empty++;
        continue;
      }
      const line = format === "openai" ? openAiLine(conv) : shareGptLine(conv, `${run.label}/${record.key}`);
      result.lines.push(JSON.stringify(line));
      result.written++;
    }
  }
  return result;
}
