import type { Sample } from "../dataset/sample.js";

/*
 * The history-probe audit: the tool calls of an attempt that look for answers outside the task (history
 * the sandbox hides, objects it does not hold, other repositories). One definition, used for every attempt,
 * solved or not, and by the `history_probes` failure label. docs/history-probes.md defines a probe exactly.
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

/** The text of a tool call's arguments, with the `reason` the built-in tools ask for (the agent's prose) left out. */
function callText(args: unknown): string {
  if (typeof args === "string") return args;
  const kept = isObj(args) ? Object.fromEntries(Object.entries(args).filter(([k]) => k !== "reason")) : args;
  return JSON.stringify(kept ?? null);
}

/** Whether one command text is a probe, given the hidden commits' full ids. */
export function isProbe(text: string, hidden: readonly string[]): boolean {
  if (PROBE_FLAGS.test(text) || PROBE_SUBCOMMANDS.test(text) || PROBE_PATHS.test(text)) return true;
  const lower = text.toLowerCase();
  return hidden.some((h) => h.length >= SHORT_HASH && lower.includes(h.slice(0, SHORT_HASH).toLowerCase()));
}

/** The probes among an attempt's events: every `tool_call` (built-in tools and shell commands alike) whose arguments probe. */
export function historyProbes(events: readonly Readonly<Record<string, unknown>>[], hidden: readonly string[]): HistoryProbes {
  const commands: string[] = [];
  for (const e of events) {
    if (e["type"] !== "tool_call") continue;
    const text = callText(e["args"]);
    if (isProbe(text, hidden)) commands.push(typeof e["tool"] === "string" ? `${e["tool"]} ${text}` : text);
  }
  return { count: commands.length, commands };
}
