import type { Sample } from "../dataset/sample.js";
import type { AnyScenarioDefinition } from "../scenarios/definition.js";
import { finishedState } from "../scenarios/shared/loose-read.js";
import { hiddenCommits, historyProbes } from "./probes.js";

/*
 * Failure labels: why an attempt failed, read deterministically from what scoring already recorded (the
 * final state the scenario read from its sandbox, the scorers' values) and the trajectory's events. No git
 * runs here and no model is asked: the same attempt always gets the same labels, for every agent.
 * The definitions are in docs/failure-labels.md.
 */

/** Every label, with its one-line definition (docs/failure-labels.md says the same at more length). */
export const FAILURE_LABELS = {
  // Every family.
  gave_up: "the agent stopped on its own before the scenario was finished",
  turn_limit: "the attempt used all its turns before the scenario was finished",
  time_limit: "the attempt ran out of its time limit",
  resource_limit: "a program of the attempt hit a jail limit (processes, memory, disk, CPU) and was stopped",
  attempt_error: "the attempt ended with an error other than a limit (its record's error code says which)",
  tool_errors_repeated: "three or more tool calls in a row failed",
  history_probes: "a tool call looked for answers outside the task (history the sandbox hides, lost objects, other repositories, the hidden commit's hash): docs/history-probes.md",
  // MCR.
  conflicts_left: "conflict regions were left unresolved",
  markers_left: "a resolved file still holds conflict markers",
  merge_not_committed: "the merge was never committed",
  region_resolved_differently: "a conflicted file differs from the recorded merge's",
  region_took_ours: "a conflict region resolved otherwise than in the recorded merge holds exactly our side (the first parent's text)",
  region_took_theirs: "a conflict region resolved otherwise than in the recorded merge holds exactly their side (the merged-in parent's text)",
  region_took_neither: "a conflict region resolved otherwise than in the recorded merge holds neither side's text as it stands",
  outside_files_changed: "every conflicted file matches the recorded merge but the merged tree does not: a file outside the conflicts differs",
  unresolvable: "the recorded merge cannot be reached by replacing only the conflict regions (the sample, not the agent)",
  // IR and ICC.
  outside_range_rewritten: "HEAD no longer descends from the commit the requested range starts after: commits before the range were rewritten",
  rebase_in_progress: "the repository was left with a rebase in progress (stopped on a conflict or never run)",
  changes_uncommitted: "changes were left uncommitted",
  tree_changed: "the final tree differs from the original tip's: a change was lost or duplicated",
  messages_lost: "a commit has an empty message",
  commits_duplicated: "two commits share a message",
  empty_commits: "a commit other than a merge commit changes nothing",
  judge_preferred_original: "the history is complete and sound but the judge preferred the original commits",
  // SWE.
  no_patch: "the agent changed no project code",
  patch_not_applied: "the patch did not apply to the project",
  tests_failing: "tests that must pass failed",
  tests_erroring: "the tests could not run or their log could not be trusted",
  tests_touched: "the patch changed the evaluation's test files (dropped before the tests ran)",
  // A failure none of the above explains.
  unexplained: "the attempt failed and no other label explains why",
} as const;
export type FailureLabel = keyof typeof FAILURE_LABELS;

/** What labelling needs of one attempt: its record's facts, the scenario's final state, the trajectory's events. */
export interface LabelInput {
  sample: Sample;
  scenario: string;
  /** The scenario's definition: its own labels come from its `failureLabels`. */
  definition: Pick<AnyScenarioDefinition, "failureLabels">;
  solved: boolean | null;
  /** The attempt's error code, null when it ran to the end. */
  errorCode: string | null;
  /** The scenario's final state (unknown: read defensively, older trajectories have fewer fields). */
  final: unknown;
  scores: Readonly<Record<string, unknown>>;
  events: readonly Readonly<Record<string, unknown>>[];
  turns: number;
  /** The attempt's turn budget (null: unknown, the turn limit is then not told from giving up). */
  maxTurns: number | null;
}

/** Failed tool calls in a row that count as "repeated". */
const REPEATED_TOOL_ERRORS = 3;

function repeatedToolErrors(events: LabelInput["events"]): boolean {
  let run = 0;
  for (const e of events) {
    if (e["type"] !== "tool_result") continue;
    run = e["ok"] === false ? run + 1 : 0;
    if (run >= REPEATED_TOOL_ERRORS) return true;
  }
  return false;
}


/**
 * The failure labels of an attempt, in a stable order; empty for a solved or unjudged attempt. A failed
 * attempt gets at least one: `unexplained` when no other applies.
 */
export function failureLabels(a: LabelInput): FailureLabel[] {
  if (a.solved !== false) return [];
  const out: FailureLabel[] = [];
  if (a.errorCode === "TIMEOUT") out.push("time_limit");
  else if (a.errorCode === "LIMIT_EXCEEDED") out.push("resource_limit");
  else if (a.errorCode !== null) out.push("attempt_error");
  else if (!finishedState(a.final)) out.push(a.maxTurns !== null && a.turns >= a.maxTurns ? "turn_limit" : "gave_up");
  if (repeatedToolErrors(a.events)) out.push("tool_errors_repeated");
  if (historyProbes(a.events, hiddenCommits(a.sample, a.scenario)).count > 0) out.push("history_probes");
  if (a.errorCode === null && a.final !== undefined) out.push(...((a.definition.failureLabels?.(a.final, a.scores) ?? []) as FailureLabel[]));
  const unique = [...new Set(out)];
  return unique.length > 0 ? unique : ["unexplained"];
}
