import type { SweSample } from "../../dataset/sample.js";
import type { ModelClient } from "../../model/types.js";

/** The version of the prompt below; recorded with every statement it wrote (`problem_statement_prompt`). */
export const DESCRIBE_PROMPT_VERSION = "swe-describe-1";

const SYSTEM = [
  "You write bug reports and feature requests for a software project, as a user of the project would file them.",
  "You are shown a change that fixed something and the tests that fail without it. Describe the problem the",
  "change solves as an issue written BEFORE the fix existed: what a user does, what happens, what they expected.",
  "Name the functions, classes or options a user calls and the behaviour they see. Never say how to fix it, never",
  "quote or paraphrase a line of the change, never mention the tests or the change itself. Plain text or Markdown,",
  "at most 250 words, nothing before or after the issue text.",
].join(" ");

/** How many characters of the gold patch and test patch the prompt shows at most. */
const SHOWN = 12_000;

function clip(text: string): string {
  return text.length > SHOWN ? `${text.slice(0, SHOWN)}\n[… ${text.length - SHOWN} more characters]` : text;
}

/** The code lines of a patch (added or removed, trimmed) long enough that finding one in a statement means it was quoted. */
export function quotableLines(patch: string): string[] {
  const out = new Set<string>();
  for (const line of patch.split("\n")) {
    if (!/^[+-]/.test(line) || line.startsWith("+++ ") || line.startsWith("--- ")) continue;
    const code = line.slice(1).trim();
    if (code.length >= 8 && /[A-Za-z0-9]/.test(code)) out.add(code);
  }
  return [...out];
}

/** The first line of `patch` that `statement` quotes, or null. */
function quotedLine(statement: string, patch: string): string | null {
  return quotableLines(patch).find((l) => statement.includes(l)) ?? null;
}

/**
 * An issue-style problem statement for a validated instance, written by a model from its gold patch and
 * FAIL_TO_PASS tests without naming the fix (as R2E-Gym back-translates changes). A statement that quotes
 * a line of the gold patch is refused and asked for again, twice at most; null when none came clean.
 */
export async function describeWithModel(model: ModelClient, sample: SweSample, commitWords: string, signal?: AbortSignal): Promise<string | null> {
  const sc = sample.scenario;
  const user = [
    `Project: ${sc.repo}`,
    "",
    "The change's own description (may be terse):",
    commitWords.slice(0, 2000),
    "",
    "The change (do not quote it):",
    clip(sc.patch),
    "",
    "The tests that fail without it:",
    sc.FAIL_TO_PASS.slice(0, 20).join("\n"),
    "",
    "The test code:",
    clip(sc.test_patch),
  ].join("\n");
  const messages: { role: "system" | "user" | "assistant"; content: string }[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: user },
  ];
  for (let attempt = 0; attempt < 3; attempt++) {
    const reply = await model.complete({ messages, temperature: 0, signal });
    const text = (reply.message.content ?? "").trim();
    const quoted = text === "" ? "(empty answer)" : quotedLine(text, sc.patch);
    if (quoted === null) return text;
    messages.push({ role: "assistant", content: text });
    messages.push({
      role: "user",
      content: `That text quotes the change ("${quoted.slice(0, 120)}") or is empty. Write the issue again without any line of the change.`,
    });
  }
  return null;
}
