import type { HtmlKit, OutcomeBlock } from "../families/definition.js";
import { familyOfScenario, reportSections } from "../families/registry.js";
import type { ResultRecord } from "../runs/record.js";
import type { Trajectory } from "../runs/trajectory.js";
import type { RunProgress } from "../runs/progress.js";
import { conversationOf, eventsOf, type AttemptEvent, type Turn } from "./conversation.js";
import { labelCounts, skillProfiles, type LabelCount, type SkillRow } from "./skills.js";
import { buildReport, type Report } from "./summary.js";
import { sectionValue, unisolatedLine, usageParts } from "./text.js";

/**
 * The data the viewer's page draws, the same whether a server hands it over (`gitgood view`) or the
 * static report carries it (`gitgood report --html`): an index of every attempt, then one attempt at a time.
 */

/** One attempt as the sample list shows it: compact, so that a 5,000-attempt index stays small. */
export interface IndexRow {
  run: number;
  key: string;
  sample_id: string;
  scenario: string;
  difficulty: string;
  repository: string;
  language: string;
  agent: string;
  repeat: number;
  status: string;
  verdict: string;
  /** The error's code, or null. */
  error: string | null;
  tampered: boolean;
  turns: number;
  tool_calls: number;
  /** null: the attempt's usage is unknown. */
  tokens: number | null;
  cost_usd: number | null;
  duration_ms: number;
  /** The attempt's failure labels (docs/failure-labels.md); empty when it has none or was never labelled. */
  labels: string[];
  /** The static page only: which of its attempt chunks holds this attempt. */
  chunk?: number;
}

/** A family's table of a run's report, as HTML its section wrote with the report's escaping kit. */
export interface IndexSection {
  title: string;
  intro: string;
  html: string;
}

/** A run as the summary shows it: label, agent, model, the report without its per-sample rows, and its families' tables. */
export interface IndexRun {
  label: string;
  dir: string;
  agent: string;
  model: string | null;
  created_at: string;
  attempts: number;
  /** Tokens, cost, judge tokens and cost, cache hits, in one line. */
  usage: string;
  /** Said when the run's agent programs ran without isolation; null otherwise. */
  unisolated: string | null;
  summary: Omit<Report, "samples">;
  sections: IndexSection[];
  /** Per agent, each Git skill's attempts and how many held it (src/report/skills.ts). */
  skills: SkillRow[];
  /** Per agent, how many failed attempts carry each failure label. */
  labels: LabelCount[];
  /** A run being written: attempts planned, finished and running (null: the run says nothing of its plan). */
  progress: RunProgress | null;
}

/** A static page's index: its runs, and one row per attempt. */
export interface ViewIndex {
  runs: IndexRun[];
  rows: IndexRow[];
}

/** What a run's summary needs besides its records. */
export interface RunMeta {
  label: string;
  dir: string;
  agent: string;
  model: string | null;
  created_at: string;
  isolation?: { mode: string; isolated: boolean };
  /** What the run planned and has started (src/runs/progress.ts), when it says. */
  progress?: RunProgress | null;
}

const escape = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
const pct = (v: number | null): string => (v === null ? "–" : `${v.toFixed(2)} %`);

/** The kit a family's HTML section writes its table with: every text escaped. */
const HTML_KIT: HtmlKit = {
  th: (text, title) => `<th${title ? ` title="${escape(title)}"` : ""}>${escape(text)}</th>`,
  cell: (text) => `<td class="num">${escape(String(text))}</td>`,
  label: (text) => `<td>${escape(text)}</td>`,
  pct,
  escape,
};

/** A report's tokens, cost, judges and cache hits in one line; an unpriced judge is said to be, never "$0". */
export function usageLine(report: Parameters<typeof usageParts>[0]): string {
  return usageParts(report).join(" · ");
}

/** Whether a record's scores say the agent changed what it must not (test files, the evaluation's inputs). */
function tamperedOf(scores: Record<string, unknown>): boolean {
  const text = JSON.stringify(scores);
  return /"(tampered|tampering|dropped_changes|changed_test_files)":\s*(true|\[[^\]])/.test(text);
}

/** A run's part of the index: its summary and one row per attempt, in the report's order. */
export function indexOfRun(records: readonly ResultRecord[], meta: RunMeta, runIndex: number): { run: IndexRun; rows: IndexRow[] } {
  const report = buildReport({ records });
  if (meta.isolation) report.isolation = meta.isolation;
  const { samples, ...summary } = report;
  const byKey = new Map(records.map((r) => [r.key, r]));
  const rows: IndexRow[] = samples.map((s) => ({
    run: runIndex,
    key: s.key,
    sample_id: s.sample_id,
    scenario: s.scenario,
    difficulty: s.difficulty,
    repository: s.repository,
    language: s.language,
    agent: s.agent,
    repeat: s.repeat,
    status: s.status,
    verdict: s.verdict,
    error: byKey.get(s.key)?.error?.code ?? null,
    tampered: tamperedOf(byKey.get(s.key)?.scores ?? {}),
    turns: s.turns,
    tool_calls: s.tool_calls,
    tokens: s.tokens,
    cost_usd: s.cost_usd,
    duration_ms: s.duration_ms,
    labels: [...(byKey.get(s.key)?.failure_labels ?? [])],
  }));
  const sections: IndexSection[] = [];
  for (const section of reportSections()) {
    const value = sectionValue(report, section.key);
    if (value === undefined || section.isEmpty(value)) continue;
    const { title, intro, table } = section.html(value, HTML_KIT);
    sections.push({ title, intro, html: table });
  }
  const run: IndexRun = {
    label: meta.label,
    dir: meta.dir,
    agent: meta.agent,
    model: meta.model,
    created_at: meta.created_at,
    attempts: records.length,
    usage: usageLine(report),
    unisolated: unisolatedLine(report) ?? null,
    summary,
    sections,
    skills: skillProfiles(records),
    labels: labelCounts(records),
    progress: meta.progress ?? null,
  };
  return { run, rows };
}

/** Where an attempt's time went, from its events' times: model waits, tool calls, and the rest (set-up, scoring, the harness). */
export interface PhaseTiming {
  phase: string;
  ms: number;
}

/** One attempt in full: its record, transcript, the family's view of its outcome, and its timings. */
export interface AttemptView {
  record: ResultRecord;
  /** Why the trajectory could not be shown (missing, damaged), or null. */
  problem: string | null;
  system: string | null;
  task: string | null;
  turns: Turn[];
  /** Notes of the attempt (an external agent's stdout and stderr, malformed calls). */
  notes: string[];
  /** The family's own view of the outcome; empty when the family has none (the scores table is shown then). */
  family: OutcomeBlock[];
  /** The rest of the outcome (the scores are the record's). */
  outcome: { final: unknown; ground_truth_diff: string | null; ended_by: string | null; judge_usage: unknown };
  timings: PhaseTiming[];
  /** The static page: the trajectory file, relative to the page (a link). */
  href?: string;
}

/** Model waits (each model turn's latency), tool calls (call to result) and the rest of the attempt's duration. */
function phaseTimings(record: ResultRecord, events: readonly AttemptEvent[], turns: readonly Turn[]): PhaseTiming[] {
  const model = turns.reduce((n, t) => n + (t.usage !== null || t.content !== null ? (t.latency_ms ?? 0) : 0), 0);
  let tools = 0;
  let open: number | null = null;
  for (const e of events) {
    if (e.type === "tool_call") open = e.at_ms ?? null;
    else if (e.type === "tool_result" && open !== null && e.at_ms !== undefined) {
      tools += Math.max(0, e.at_ms - open);
      open = null;
    }
  }
  const out: PhaseTiming[] = [
    { phase: "model", ms: model },
    { phase: "tools", ms: tools },
    { phase: "set-up, scoring and the rest", ms: Math.max(0, record.duration_ms - model - tools) },
  ];
  return out;
}

/** The view of one attempt from its record and trajectory (null with `problem` saying why there is none). */
export function attemptViewOf(record: ResultRecord, trajectory: Trajectory | null, problem: string | null): AttemptView {
  const events = trajectory ? eventsOf(trajectory) : [];
  const conv = trajectory ? conversationOf(trajectory, events) : null;
  const notes = events.flatMap((e) => (e.type === "note" ? [e.text] : []));
  let family: OutcomeBlock[] = [];
  const view = familyOfScenario(record.scenario)?.outcomeView;
  if (view) {
    try {
      family = view({ record, trajectory });
    } catch (err) {
      family = [{ kind: "text", tone: "bad", text: `the family's view of this outcome failed: ${err instanceof Error ? err.message : String(err)}` }];
    }
  }
  const turns = conv?.turns ?? [];
  return {
    record,
    problem,
    system: conv?.system ?? null,
    task: conv?.task ?? null,
    turns,
    notes,
    family,
    outcome: {
      final: trajectory?.final ?? null,
      ground_truth_diff: trajectory?.ground_truth_diff ?? null,
      ended_by: trajectory?.ended_by ?? null,
      judge_usage: trajectory?.judge_usage ?? null,
    },
    timings: phaseTimings(record, events, turns),
  };
}
