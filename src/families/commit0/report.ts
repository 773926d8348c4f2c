import { z } from "zod";
import type { ResultRecord } from "../../runs/record.js";
import { COMMIT0 } from "../../scenarios/commit0/index.js";
import type { ReportSection } from "../definition.js";

/** The registry name of the repository-completion scenario, as its records carry it. */
const COMMIT0_SCENARIO = COMMIT0.name;

/** What the report reads of a COMMIT0 record's `scores.commit0`; a record whose value does not match counts as an error. */
const Commit0ScoreSchema = z.object({
  passed: z.number().int().min(0),
  total: z.number().int().min(0),
  runtime_s: z.number().min(0),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** The evaluation's files the change touched (dropped before the tests ran) and signs of tampering with the run; older records: absent. */
  tampered: z.array(z.string()).optional(),
  tampering: z.array(z.string()).optional(),
  /** What the untouched skeleton passes (null: not measured, its evaluation failed); older records: absent. */
  skeleton: z.object({ passed: z.number().int().min(0), total: z.number().int().min(0) }).nullable().optional(),
});

/** One repository of a run, in the seed's layout: Repository, Runtime (s), Passed / Total. */
export interface Commit0Row {
  agent: string;
  repository: string;
  sample_id: string;
  /** Seconds the evaluation's test suite ran (null: it did not run). */
  runtime_s: number | null;
  passed: number;
  /** Counted tests (null: unknown, the attempt failed before its evaluation). */
  total: number | null;
  /** passed / total in percent (0 for a failed attempt: a missing test failed). */
  pass_rate: number;
  /** The attempt or its evaluation failed (its code), else null. */
  error: string | null;
  /** Evaluation files the attempt changed (dropped before its tests ran), plus signs it tampered with the run: 0 for an honest attempt. */
  tampered: number;
  /** Counted tests the untouched skeleton passes, and its pass rate in percent (null: not known). */
  skeleton_passed: number | null;
  skeleton_pass_rate: number | null;
}

/** Per agent: commit0's headline, the mean pass rate over repositories. */
export interface Commit0Mean {
  agent: string;
  repositories: number;
  /** Mean of the repositories' pass rates, in percent. */
  mean_pass_rate: number;
  passed: number;
  total: number;
  /** Mean of the skeletons' own pass rates over the same repositories, in percent (null: not known for every one). */
  skeleton_mean_pass_rate: number | null;
}

/** The commit0 report section: one row per agent and task (its latest record), and each agent's means. */
export interface Commit0Table {
  /** By agent, then repository, then sample id. */
  rows: Commit0Row[];
  means: Commit0Mean[];
}

function rowOf(r: ResultRecord): Commit0Row {
  const parsed = Commit0ScoreSchema.safeParse(r.scores.commit0);
  const base = { agent: r.agent, repository: r.repository, sample_id: r.sample_id };
  if (!parsed.success) {
    return { ...base, runtime_s: null, passed: 0, total: null, pass_rate: 0, error: r.error?.code ?? "no_evaluation", tampered: 0, skeleton_passed: null, skeleton_pass_rate: null };
  }
  const s = parsed.data;
  const skeleton = s.skeleton ?? null;
  const failed = s.error !== undefined || r.status === "error";
  return {
    ...base,
    runtime_s: failed ? null : s.runtime_s,
    passed: failed ? 0 : s.passed,
    total: s.total,
    pass_rate: failed ? 0 : percent(s.passed, s.total),
    error: s.error?.code ?? r.error?.code ?? null,
    tampered: (s.tampered?.length ?? 0) + (s.tampering?.length ?? 0),
    skeleton_passed: skeleton?.passed ?? null,
    skeleton_pass_rate: skeleton === null ? null : percent(skeleton.passed, skeleton.total),
  };
}

/** a / b in percent with two decimals (0 when b is 0). */
function percent(a: number, b: number): number {
  return b === 0 ? 0 : Math.round((a / b) * 10_000) / 100;
}

/** The mean of percentages with two decimals. */
function mean(values: readonly number[]): number {
  return Math.round((values.reduce((a, v) => a + v, 0) / values.length) * 100) / 100;
}

/**
 * commit0's evaluation of a run's COMMIT0 attempts: one row per repository (sample) and agent, the
 * last attempt when there are repeats, and per agent the mean pass rate over the repositories (an
 * attempt that failed counts 0: its tests are missing, so failed). Empty without COMMIT0 records.
 */
export function commit0Table(records: readonly ResultRecord[]): Commit0Table {
  const latest = new Map<string, ResultRecord>();
  for (const r of records) if (r.scenario === COMMIT0_SCENARIO) latest.set(`${r.agent}\0${r.sample_id}`, r);
  const rows = [...latest.values()].map(rowOf).sort((a, b) => a.agent.localeCompare(b.agent) || a.repository.localeCompare(b.repository) || a.sample_id.localeCompare(b.sample_id));
  const agents = [...new Set(rows.map((r) => r.agent))];
  const means = agents.map((agent) => {
    const mine = rows.filter((r) => r.agent === agent);
    const skeletons = mine.map((r) => r.skeleton_pass_rate).filter((v): v is number => v !== null);
    return {
      agent,
      repositories: mine.length,
      mean_pass_rate: mean(mine.map((r) => r.pass_rate)),
      passed: mine.reduce((a, r) => a + r.passed, 0),
      total: mine.reduce((a, r) => a + (r.total ?? 0), 0),
      skeleton_mean_pass_rate: skeletons.length === mine.length ? mean(skeletons) : null,
    };
  });
  return { rows, means };
}

/** The table as text, in the seed's layout, with the mean pass rate per agent below it. */
function formatCommit0(table: Commit0Table, many: boolean, render: (header: string[], rows: string[][]) => string): string[] {
  const tampering = table.rows.some((r) => r.tampered > 0);
  const head = [...(many ? ["agent"] : []), "Repository", "Runtime (s)", "Passed / Total", "Skeleton alone", ...(tampering ? ["Tampered"] : [])];
  const rows = table.rows.map((r) => [
    ...(many ? [r.agent] : []),
    r.repository,
    r.runtime_s === null ? (r.error ?? "-") : r.runtime_s.toFixed(1),
    `${r.passed} / ${r.total ?? "-"}`,
    skeletonCell(r),
    ...(tampering ? [String(r.tampered)] : []),
  ]);
  const means = table.means.map((m) => `${many ? `${m.agent}: ` : ""}${meanLine(m)}`);
  return ["Repository completion (commit0)", render(head, rows), ...means];
}

/** What the untouched skeleton passes of a row's counted tests ("unknown" when it was not measured). */
function skeletonCell(r: Commit0Row): string {
  return r.skeleton_passed === null ? "unknown" : `${r.skeleton_passed} / ${r.total ?? "-"}`;
}

/** The headline of an agent: its mean pass rate, beside the skeletons' own. */
function meanLine(m: Commit0Mean): string {
  const skeleton = m.skeleton_mean_pass_rate === null ? "unknown" : `${m.skeleton_mean_pass_rate.toFixed(2)} %`;
  return `mean pass rate ${m.mean_pass_rate.toFixed(2)} % over ${m.repositories} repositor${m.repositories === 1 ? "y" : "ies"} (the skeletons alone: ${skeleton})`;
}

declare module "../definition.js" {
  interface ReportSections {
    /** COMMIT0 attempts: per repository runtime and passed / total counted tests, and the mean pass rate per agent; empty without. */
    commit0: Commit0Table;
  }
}

/** The commit0 table of a report. */
export const COMMIT0_SECTION: ReportSection<Commit0Table> = {
  key: "commit0",
  build: commit0Table,
  isEmpty: (t) => t.rows.length === 0,
  text: (t, kit) => formatCommit0(t, kit.many, (h, rows) => kit.table(h, rows, ["Repository"])),
  html(t, { th, cell, label }) {
    const many = t.means.length > 1;
    const head = `<tr>${many ? th("Agent") : ""}${th("Repository")}${th("Runtime (s)")}${th("Passed / Total")}${th("Skeleton alone")}</tr>`;
    const body = t.rows
      .map(
        (r) =>
          `<tr>${many ? label(r.agent) : ""}${label(r.repository)}${cell(r.runtime_s === null ? (r.error ?? "-") : r.runtime_s.toFixed(1))}${cell(`${r.passed} / ${r.total ?? "-"}`)}${cell(skeletonCell(r))}</tr>`,
      )
      .join("");
    const means = t.means
      .map(
        (m) =>
          `<tr>${many ? label(m.agent) : ""}${label("mean pass rate")}${cell("")}${cell(`${m.mean_pass_rate.toFixed(2)} %`)}${cell(m.skeleton_mean_pass_rate === null ? "unknown" : `${m.skeleton_mean_pass_rate.toFixed(2)} %`)}</tr>`,
      )
      .join("");
    return {
      title: "Repository completion (commit0)",
      intro:
        "Counted tests passing (passed or xfail; a missing test failed) per repository, and the mean pass rate over repositories, beside what the untouched skeleton passes (the files a skeleton keeps whole, such as __init__.py, pass some tests with no work done).",
      table: `<table>${head}${body}${means}</table>`,
    };
  },
};
