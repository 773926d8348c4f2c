import { objectsNotHeld } from "../agents/shell-log.js";
import type { Sample } from "../dataset/sample.js";

/*
 * The history-probe audit: the tool calls of an attempt that look for answers outside the task (history
 * the sandbox hides, objects it does not hold, other repositories). One definition, used for every attempt,
 * solved or not, and by the `history_probes` failure label. docs/history-probes.md defines a probe exactly.
 * Only commands are read: text an agent writes (a file's content, a commit message, a heredoc's body) and
 * its prose are left out.
 */

/** The probes of one attempt: how many tool calls probed, and the text of each (its `reason` left out). */
export interface HistoryProbes {
  count: number;
  commands: string[];
}

/** Options that reach beyond the task's own history: whole-word matches anywhere in a call's arguments. */
const PROBE_FLAGS = /(^|[\s"'=])(--all|--reflog|--lost-found|--unreachable|--dangling|--batch-all-objects|--walk-reflogs|--remotes)(?=[\s"';|&)]|$)/;
/** Git subcommands that read lost objects or other repositories: they count after the word `git`. */
const PROBE_SUBCOMMANDS = /(^|[^\w-])git\s+(?:-[\w-]+(?:[ =]\S+)?\s+)*(reflog|fsck|fetch|clone|pull|remote|bundle|ls-remote|fetch-pack|unpack-objects|verify-pack|show-index)(?=\s|$|["';|&)])/;
/** Pack files, loose objects and the reflog read by hand, by path. */
const PROBE_PATHS = /\.git\/(objects\/pack|objects\/[0-9a-f]{2}\/|logs\/|packed-refs)/i;
/** Length of a hidden commit's short hash that counts as naming it. */
const SHORT_HASH = 7;

const isObj = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Commit ids the agent is not shown: naming one is a probe (MCR's recorded merge, ICC's original tip). SWE samples name no fix commit. */
export function hiddenCommits(sample: Sample, scenario: string): string[] {
  if (sample.sample_type === "merge") return [sample.scenario.merge_commit_hash];
  if (sample.sample_type === "file_commit_chain" && scenario === "ICC") return [sample.scenario.newest_commit];
  return [];
}

/**
 * Arguments of the built-in tools that hold text the agent writes or looks for, not a command: never read.
 * A file's text, a commit message, a search's text, and the prose of the memory tools' notes.
 */
const WRITTEN = new Set(["reason", "content", "old_text", "new_text", "body", "commit_message", "text", "contribution", "summary", "milestones", "todos", "observation", "thought", "action"]);
/** A shell word: quoted parts, escapes and plain characters up to a space or an operator. */
const WORD = String.raw`(?:'[^']*'|"(?:[^"\\]|\\.)*"|\\.|[^\s'"\\;|&)])+`;
/** A message given on the command line (`-m TEXT`, `-am TEXT`, `--message=TEXT`): what the agent writes. */
const MESSAGE = new RegExp(String.raw`(^|\s)(-[a-zA-Z]*m|--message)(=|\s+)${WORD}`, "g");
/**
 * A here-document's body written to a file by `cat` or `tee` (`cat > notes.md <<EOF`), up to its end word: a
 * file's content. A body fed to any other program, or piped on, is a command and stays.
 */
const HEREDOC = /(^|[\n;&(]\s*)((?:cat|tee)\b[^\n<|]*)<<-?[ \t]*(['"]?)(\w+)\3([^\n|]*)\n[\s\S]*?\n[ \t]*\4(?=\n|$)/g;
/** Text that runs a command where it stands (`$(…)`, backquotes): never left out. */
const RUNS = /\$\(|`/;

/** A command line with the text it writes left out: messages and here-documents' bodies, unless they run commands. */
function commandOnly(text: string): string {
  return text
    .replace(HEREDOC, (all: string, before: string, opener: string, q: string, end: string, rest: string) => (RUNS.test(all) && q === "" ? all : `${before}${opener}<<${q}${end}${q}${rest}`))
    .replace(MESSAGE, (all: string, before: string, flag: string) => (RUNS.test(all) ? all : `${before}${flag}`));
}

/** The text of a tool call's arguments: its commands, with what the agent writes (WRITTEN, messages, here-documents) left out. */
function callText(args: unknown): string {
  if (typeof args === "string") return commandOnly(args);
  if (!isObj(args)) return JSON.stringify(args ?? null);
  const kept = Object.entries(args)
    .filter(([k]) => !WRITTEN.has(k))
    .map(([k, v]) => [k, typeof v === "string" ? commandOnly(v) : v]);
  return JSON.stringify(Object.fromEntries(kept));
}

/** Whether one command text is a probe, given the hidden commits' full ids. */
export function isProbe(text: string, hidden: readonly string[]): boolean {
  if (PROBE_FLAGS.test(text) || PROBE_SUBCOMMANDS.test(text) || PROBE_PATHS.test(text)) return true;
  const lower = text.toLowerCase();
  return hidden.some((h) => h.length >= SHORT_HASH && lower.includes(h.slice(0, SHORT_HASH).toLowerCase()));
}

/**
 * The probes among an attempt's events: every `tool_call` (built-in tools and shell commands alike) whose
 * arguments probe, and every shell command whose result says it named objects the repository does not hold.
 */
export function historyProbes(events: readonly Readonly<Record<string, unknown>>[], hidden: readonly string[]): HistoryProbes {
  const commands: string[] = [];
  events.forEach((e, i) => {
    if (e["type"] !== "tool_call") return;
    const text = callText(e["args"]);
    const next = events[i + 1];
    const reached = e["tool"] === "shell" && next?.["type"] === "tool_result" && next["tool"] === "shell" && typeof next["output"] === "string" && objectsNotHeld(next["output"]).length > 0;
    if (reached || isProbe(text, hidden)) commands.push(typeof e["tool"] === "string" ? `${e["tool"]} ${text}` : text);
  });
  return { count: commands.length, commands };
}
