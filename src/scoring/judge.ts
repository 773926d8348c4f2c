import { z } from "zod";
import type { ChatMessage, ModelClient, Usage } from "../model/types.js";

export interface JudgedCommit {
  message: string;
  diff: string;
}

export type Winner = "agent" | "original" | "tie" | "invalid";

export interface JudgeVerdict {
  judge: string;
  /** Which history was shown first. */
  agent_position: 1 | 2;
  winner: Winner;
  reason: string;
  /** The model's answer as given (the second one when it was asked again). */
  answer: string;
}

export interface JudgeOutcome {
  solved: boolean;
  verdicts: JudgeVerdict[];
  /** Per judge model: did the agent's history win with both orders? */
  judges: { judge: string; wins_both: boolean }[];
  usage: Usage;
}

const AnswerSchema = z.object({
  better: z.enum(["1", "2", "tie"]),
  reason: z.string().min(1),
});

const SYSTEM = `You review Git histories. You will see two histories that make the same overall change to a
code base, each a list of commits (oldest first) with its message and diff. Decide which history a careful
maintainer would rather find in the project's log. Weigh, in this order of importance:
1. Commit messages: do they say clearly and truthfully what each commit changes and why?
2. Cohesion: does each commit hold one logical change, without unrelated edits mixed in?
3. Progression: do the commits build on each other in an order that is easy to follow and review?
4. Size: are commits small enough to review, without splitting a change so far that a commit breaks the code?
Do not prefer a history for being first or for having more or fewer commits as such.
Answer with a JSON object only: {"better": "1" | "2" | "tie", "reason": "<one or two sentences>"}.`;

function render(commits: readonly JudgedCommit[], maxDiff: number): string {
  return commits
    .map((c, i) => {
      const diff = c.diff.length > maxDiff ? `${c.diff.slice(0, maxDiff)}\n[… diff cut: ${c.diff.length - maxDiff} more characters]` : c.diff;
      return `Commit ${i + 1} of ${commits.length}\nMessage:\n${c.message.trim() || "(empty message)"}\nDiff:\n${diff.trim() || "(no changes)"}`;
    })
    .join("\n\n");
}

function parseAnswer(text: string | null): z.infer<typeof AnswerSchema> | null {
  if (!text) return null;
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start === -1 || end <= start) return null;
  try {
    const parsed = AnswerSchema.safeParse(JSON.parse(text.slice(start, end + 1)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

async function askOnce(
  judge: ModelClient,
  first: readonly JudgedCommit[],
  second: readonly JudgedCommit[],
  maxDiff: number,
  usage: Usage,
): Promise<{ answer: z.infer<typeof AnswerSchema> | null; raw: string }> {
  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM },
    {
      role: "user",
      content: `History 1:\n\n${render(first, maxDiff)}\n\n=====\n\nHistory 2:\n\n${render(second, maxDiff)}\n\nWhich history is better?`,
    },
  ];
  let reply = await judge.complete({ messages, temperature: 0, json: true });
  usage.prompt_tokens += reply.usage.prompt_tokens;
  usage.completion_tokens += reply.usage.completion_tokens;
  let answer = parseAnswer(reply.message.content);
  if (!answer) {
    // Asked again once, with the exact form spelled out.
    messages.push(
      { role: "assistant", content: reply.message.content ?? "" },
      {
        role: "user",
        content: 'That was not a valid answer. Reply with only a JSON object such as {"better": "1", "reason": "…"}, where better is "1", "2" or "tie".',
      },
    );
    reply = await judge.complete({ messages, temperature: 0, json: true });
    usage.prompt_tokens += reply.usage.prompt_tokens;
    usage.completion_tokens += reply.usage.completion_tokens;
    answer = parseAnswer(reply.message.content);
  }
  return { answer, raw: reply.message.content ?? "" };
}

/**
 * The pairwise judge: every judge model compares the agent's history with the original twice, with the
 * positions swapped; the agent wins with a judge only if it wins both times (a tie or a split is not a
 * win). With several judges the majority decides. Every verdict is returned.
 */
export async function judgeHistories(
  judges: readonly ModelClient[],
  original: readonly JudgedCommit[],
  agent: readonly JudgedCommit[],
  opts: { maxDiffChars?: number } = {},
): Promise<JudgeOutcome> {
  const maxDiff = opts.maxDiffChars ?? 6000;
  const usage: Usage = { prompt_tokens: 0, completion_tokens: 0 };
  const verdicts: JudgeVerdict[] = [];
  const perJudge: JudgeOutcome["judges"] = [];
  for (const judge of judges) {
    let wins = 0;
    for (const position of [1, 2] as const) {
      const [first, second] = position === 1 ? [agent, original] : [original, agent];
      const { answer, raw } = await askOnce(judge, first, second, maxDiff, usage);
      let winner: Winner = "invalid";
      if (answer) {
        winner = answer.better === "tie" ? "tie" : Number(answer.better) === position ? "agent" : "original";
      }
      if (winner === "agent") wins++;
      verdicts.push({ judge: judge.model, agent_position: position, winner, reason: answer?.reason ?? "", answer: raw });
    }
    perJudge.push({ judge: judge.model, wins_both: wins === 2 });
  }
  const yes = perJudge.filter((j) => j.wins_both).length;
  return { solved: yes * 2 > perJudge.length, verdicts, judges: perJudge, usage };
}
