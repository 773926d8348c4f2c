import { GitGoodError } from "../errors.js";
import type { ModelClient } from "../model/types.js";
import { isUnifiedDiff } from "../util/unified-diff.js";
import { at } from "../util/at.js";

/** Where a patch was found in an agent's text answer. */
export type PatchSource = "tags" | "fence" | "bare" | "model" | "none";

/** A patch found in an agent's answer, and how it was found. */
export interface ExtractedPatch {
  /** The patch, ending with a line break; empty when none was found. */
  patch: string;
  /** Where it was found: `<patch>` tags, a diff fence, a bare diff, a model's extraction, or `none`. */
  source: PatchSource;
}

function withNewline(text: string): string {
  return text === "" || text.endsWith("\n") ? text : `${text}\n`;
}

/** A fenced block's inside when the whole text is one fenced block, else the text. */
function unfence(text: string): string {
  const m = /^\s*```[^\n]*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return m ? at(m, 1) : text;
}

/** Lines that may come between and around a git patch's hunks. */
const HEADER_LINE =
  /^(diff |index |--- |\+\+\+ |new file mode |deleted file mode |old mode |new mode |similarity index |dissimilarity index |rename from |rename to |copy from |copy to |Binary files |GIT binary patch|literal |delta )/;

/**
 * The unified diff at the start of `lines` (from `from`): headers and hunks, hunk bodies followed by
 * their headers' line counts, binary sections to their blank line. Ends at the first line that belongs
 * to none of them (prose after the diff).
 */
function diffRun(lines: readonly string[], from: number): string[] {
  const out: string[] = [];
  let oldLeft = 0;
  let newLeft = 0;
  let binary = false;
  for (let i = from; i < lines.length; i++) {
    const line = at(lines, i);
    if (oldLeft > 0 || newLeft > 0) {
      if (line.startsWith("+")) newLeft--;
      else if (line.startsWith("-")) oldLeft--;
      else if (line.startsWith(" ") || line === "") {
        oldLeft--;
        newLeft--;
      } else if (!line.startsWith("\\")) break;
      out.push(line);
      continue;
    }
    if (line.startsWith("\\")) {
      out.push(line);
      continue;
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      binary = false;
      out.push(line);
      continue;
    }
    if (HEADER_LINE.test(line)) {
      binary = binary || line.startsWith("GIT binary patch");
      out.push(line);
      continue;
    }
    if (binary) {
      out.push(line);
      if (line === "") binary = false;
      continue;
    }
    break;
  }
  return out;
}

/** The first bare unified diff in free text: from its first header to where the diff ends. */
function bareDiff(text: string): string {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = at(lines, i);
    const starts = line.startsWith("diff --git ") || (line.startsWith("--- ") && (lines[i + 1] ?? "").startsWith("+++ "));
    if (!starts) continue;
    const run = diffRun(lines, i).join("\n");
    if (isUnifiedDiff(run)) return withNewline(run);
  }
  return "";
}

/**
 * The patch in an agent's text answer, looked for as the AgentBeats SWE-bench green agent does: inside
 * `<patch>…</patch>` tags, then in fenced `diff` or `patch` blocks (several are joined), then as a bare
 * unified diff anywhere in the text. A text that is a patch already comes back unchanged.
 */
export function extractPatch(answer: string): ExtractedPatch {
  const tagged = /<patch>([\s\S]*?)<\/patch>/i.exec(answer);
  if (tagged) {
    const inner = unfence(at(tagged, 1).replace(/^\n/, ""));
    return { patch: withNewline(inner), source: "tags" };
  }
  const fences = [...answer.matchAll(/```(?:diff|patch)[^\n]*\n([\s\S]*?)```/g)].map((m) => at(m, 1));
  if (fences.length > 0) return { patch: withNewline(fences.map(withNewline).join("")), source: "fence" };
  const bare = bareDiff(answer);
  return bare === "" ? { patch: "", source: "none" } : { patch: bare, source: "bare" };
}

const EXTRACT_PROMPT = `You turn an answer of a coding agent into a patch. The answer below describes or shows
changes to the files of a repository. Reply with the changes as one unified diff (the format of "git diff":
"diff --git a/PATH b/PATH", "--- a/PATH", "+++ b/PATH" and hunks with correct line counts), inside
<patch></patch> tags, and nothing else. If the answer holds no change to any file, reply with <patch></patch>.`;

/**
 * Asks `model` to turn a free-text answer into a diff (`--extract-with MODEL`). The reply is accepted
 * only when it parses as a unified diff; otherwise there is no patch.
 */
export async function extractWithModel(model: ModelClient, answer: string, signal?: AbortSignal): Promise<ExtractedPatch> {
  const reply = await model.complete({
    messages: [
      { role: "system", content: EXTRACT_PROMPT },
      { role: "user", content: answer },
    ],
    temperature: 0,
    signal,
  });
  const found = extractPatch(reply.message.content ?? "");
  return isUnifiedDiff(found.patch) ? { patch: found.patch, source: "model" } : { patch: "", source: "none" };
}

/**
 * The patch an agent's answer holds: extracted from its text; when nothing is found there and a model
 * is given, the model's reading of it.
 */
export async function patchFromAnswer(answer: string, model?: ModelClient | null, signal?: AbortSignal): Promise<ExtractedPatch> {
  const found = extractPatch(answer);
  if (found.patch !== "" || !model || answer.trim() === "") return found;
  try {
    return await extractWithModel(model, answer, signal);
  } catch (err) {
    if (err instanceof GitGoodError) throw err;
    throw new GitGoodError("MODEL_ERROR", `the extraction model failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
