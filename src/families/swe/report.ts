import { z } from "zod";
import type { ResultRecord } from "../../runs/record.js";
import { extrasOf } from "../../runs/fields.js";
import { SWE } from "../../scenarios/swe/index.js";
import type { ReportSection } from "../definition.js";
import { ENV_INVALID, SWE_STATUSES, type SweStatus } from "../../swe/status.js";

/** The registry name of the SWE scenario, as its records carry it. */
export const SWE_SCENARIO = SWE.name;

const TestCountsSchema = z
  .object({ passed: z.number().int().min(0), total: z.number().int().min(0) })
  .refine((t) => t.passed <= t.total, "passed exceeds total");

/** What the report reads of a SWE record's `scores.swe`; a record whose value does not match is skipped. */
const SweScoreSchema = z.object({
  status: z.enum([...SWE_STATUSES, ENV_INVALID]),
  resolution: z.enum(["RESOLVED_FULL", "RESOLVED_PARTIAL", "RESOLVED_NO"]),
  fail_to_pass: TestCountsSchema,
  pass_to_pass: TestCountsSchema,
  apply_strategy: z.string().nullable(),
  /** The evaluation's files the patch changed (dropped before the tests ran); older records: absent. */
  tampered: z.array(z.string()).optional(),
  /** Signs that the code under test tampered with the test run; older records: absent. */
  tampering: z.array(z.string()).optional(),
});

/** One instance as the SWE tables count it. */
interface Instance {
  status: SweStatus;
  /** Shares of FAIL_TO_PASS and PASS_TO_PASS tests that pass (an empty list counts as all passed). */
  f2p: number;
  p2p: number;
  applied: boolean;
  /** The answer changed the evaluation's files or tampered with the test run. */
  tampered: boolean;
}

/**
 * How a SWE record counts: its `scores.swe`; a record that ended in a system error counts as `error`
 * with no test passing and no patch applied (as the AgentBeats green agent counts a failed pipeline);
 * `env_invalid` and `skipped` (a malformed `scores.swe`) are left out of the instances.
 */
function instanceOf(r: ResultRecord): Instance | typeof ENV_INVALID | "skipped" {
  if (r.status === "error" && r.scores.swe === undefined) return { status: "error", f2p: 0, p2p: 0, applied: false, tampered: false };
  const parsed = SweScoreSchema.safeParse(r.scores.swe);
  if (!parsed.success) return "skipped";
  const s = parsed.data;
  if (s.status === ENV_INVALID) return ENV_INVALID;
  // An evaluation that failed says nothing passed, whatever its lists hold (an empty list adds 0, not 1).
  const share = (t: { passed: number; total: number }) => (s.status === "error" ? 0 : t.total === 0 ? 1 : t.passed / t.total);
  const tampered = (s.tampered?.length ?? 0) > 0 || (s.tampering?.length ?? 0) > 0;
  return { status: s.status, f2p: share(s.fail_to_pass), p2p: share(s.pass_to_pass), applied: s.apply_strategy !== null, tampered };
}

/** What a group of SWE records adds up to; fractions 0..1 of the counted instances (0 when there are none). */
interface Tally {
  instances: number;
  env_invalid: number;
  skipped: number;
  tampered: number;
  statuses: Record<SweStatus, number>;
  fractions: Record<`${SweStatus}_pct` | "fail_to_pass_passed_pct" | "pass_to_pass_passed_pct" | "patch_applied_pct", number>;
}

function tally(records: readonly ResultRecord[]): Tally {
  const counted: Instance[] = [];
  let envInvalid = 0;
  let skipped = 0;
  for (const r of records) {
    const i = instanceOf(r);
    if (i === ENV_INVALID) envInvalid += 1;
    else if (i === "skipped") skipped += 1;
    else counted.push(i);
  }
  const n = counted.length;
  const mean = (v: (i: Instance) => number) => (n === 0 ? 0 : counted.reduce((a, i) => a + v(i), 0) / n);
  const statuses = Object.fromEntries(SWE_STATUSES.map((s) => [s, counted.filter((i) => i.status === s).length])) as Record<SweStatus, number>;
  const fractions = {
    ...Object.fromEntries(SWE_STATUSES.map((s) => [`${s}_pct`, n === 0 ? 0 : statuses[s] / n])),
    fail_to_pass_passed_pct: mean((i) => i.f2p),
    pass_to_pass_passed_pct: mean((i) => i.p2p),
    patch_applied_pct: mean((i) => (i.applied ? 1 : 0)),
  } as Tally["fractions"];
  return { instances: n, env_invalid: envInvalid, skipped, tampered: counted.filter((i) => i.tampered).length, statuses, fractions };
}

/** The SWE section's row of one agent and repository (or the total): instances counted and left out, and their rates. */
export interface SweRow {
  agent: string;
  /** The SWE repository, or "total". */
  repository: string;
  /** Instances counted: every record except `env_invalid` and malformed ones. */
  instances: number;
  /** Instances that failed their own validation (left out of every rate). */
  env_invalid: number;
  /** Records whose `scores.swe` is malformed (left out of every rate). */
  skipped: number;
  /** Instances whose answer changed the evaluation's files or tampered with the test run (counted, scored without it). */
  tampered: number;
  /** Instances per status. */
  statuses: Record<SweStatus, number>;
  /**
   * In percent of the instances (null for none): per status (`resolved`, …), then `fail_to_pass` and
   * `pass_to_pass` (the mean of each instance's share of those tests passing) and `patch_applied`.
   */
  rates: Record<SweStatus | "fail_to_pass" | "pass_to_pass" | "patch_applied", number | null>;
}

function sweRow(agent: string, repository: string, records: readonly ResultRecord[]): SweRow {
  const t = tally(records);
  const pct = (f: number) => (t.instances === 0 ? null : Math.round(f * 10_000) / 100);
  const rates = {
    ...Object.fromEntries(SWE_STATUSES.map((s) => [s, pct(t.fractions[`${s}_pct`])])),
    fail_to_pass: pct(t.fractions.fail_to_pass_passed_pct),
    pass_to_pass: pct(t.fractions.pass_to_pass_passed_pct),
    patch_applied: pct(t.fractions.patch_applied_pct),
  } as SweRow["rates"];
  return { agent, repository, instances: t.instances, env_invalid: t.env_invalid, skipped: t.skipped, tampered: t.tampered, statuses: t.statuses, rates };
}

/** The SWE table: per agent, one row per repository and a total; empty when the records hold no SWE attempt. */
export function sweRows(records: readonly ResultRecord[]): SweRow[] {
  const swe = records.filter((r) => r.scenario === SWE_SCENARIO);
  const rows: SweRow[] = [];
  for (const agent of [...new Set(swe.map((r) => r.agent))].sort()) {
    const mine = swe.filter((r) => r.agent === agent);
    for (const repo of [...new Set(mine.map((r) => r.repository))].sort()) rows.push(sweRow(agent, repo, mine.filter((r) => r.repository === repo)));
    rows.push(sweRow(agent, "total", mine));
  }
  return rows;
}

/** The EvalResult of the AgentBeats SWE-bench leaderboard: counts and fractions 0..1. */
export interface EvalResult {
  total_instances: number;
  resolved_pct: number;
  breaking_resolved_pct: number;
  partially_resolved_pct: number;
  work_in_progress_pct: number;
  regression_pct: number;
  no_op_pct: number;
  error_pct: number;
  fail_to_pass_passed_pct: number;
  pass_to_pass_passed_pct: number;
}

/** The AgentBeats results document of one agent (see `agentBeatsResults`). */
export interface AgentBeatsResults {
  /** Each role to the agent that played it. */
  participants: Record<string, string>;
  /** One result per repeat. */
  results: EvalResult[];
}

/**
 * The AgentBeats results document of one agent's SWE records: `participants` maps `role` to the
 * agent, and `results` holds one EvalResult per repeat (one without repeats; one with zero instances
 * for a run without SWE records). `env_invalid` instances are left out of `total_instances` and of
 * every fraction: an instance whose own tests do not validate says nothing about the agent.
 */
export function agentBeatsResults(records: readonly ResultRecord[], agent: string, role: string): AgentBeatsResults {
  const swe = records.filter((r) => r.scenario === SWE_SCENARIO && r.agent === agent);
  const repeats = [...new Set(swe.map((r) => extrasOf(r).repeat))].sort((a, b) => a - b);
  const results = (repeats.length === 0 ? [0] : repeats).map((repeat): EvalResult => {
    const t = tally(swe.filter((r) => extrasOf(r).repeat === repeat));
    const f = t.fractions;
    return {
      total_instances: t.instances,
      resolved_pct: f.resolved_pct,
      breaking_resolved_pct: f.breaking_resolved_pct,
      partially_resolved_pct: f.partially_resolved_pct,
      work_in_progress_pct: f.work_in_progress_pct,
      regression_pct: f.regression_pct,
      no_op_pct: f.no_op_pct,
      error_pct: f.error_pct,
      fail_to_pass_passed_pct: f.fail_to_pass_passed_pct,
      pass_to_pass_passed_pct: f.pass_to_pass_passed_pct,
    };
  });
  return { participants: { [role]: agent }, results };
}

const SWE_HEAD = ["instances", ...SWE_STATUSES, "F2P pass", "P2P pass", "applied", "env_invalid", "tampered"];

declare module "../definition.js" {
  interface ReportSections {
    /** SWE attempts: statuses, test pass rates and patch-applied rate per repository; empty without. */
    swe: SweRow[];
  }
}

/** The SWE table of a report. */
export const SWE_SECTION: ReportSection<SweRow[]> = {
  key: "swe",
  build: sweRows,
  isEmpty: (rows) => rows.length === 0,
  text(rows, kit) {
    const cells = (r: SweRow): string[] => [
      String(r.instances),
      ...SWE_STATUSES.map((s) => kit.pct(r.rates[s])),
      kit.pct(r.rates.fail_to_pass),
      kit.pct(r.rates.pass_to_pass),
      kit.pct(r.rates.patch_applied),
      String(r.env_invalid),
      String(r.tampered),
    ];
    const who = (r: SweRow) => (kit.many ? [r.agent] : []);
    return [
      "SWE (% of instances; env_invalid instances are not counted)",
      kit.table([...(kit.many ? ["agent"] : []), "repository", ...SWE_HEAD], rows.map((r) => [...who(r), r.repository, ...cells(r)])),
    ];
  },
  html(rows, { th, cell, label, pct }) {
    const many = new Set(rows.map((r) => r.agent)).size > 1;
    const head =
      `<tr>${many ? th("Agent") : ""}${th("Repository")}${th("Instances")}${SWE_STATUSES.map((s) => th(s)).join("")}` +
      `${th("FAIL_TO_PASS passing")}${th("PASS_TO_PASS passing")}${th("Patch applied")}${th("env_invalid", "instances that failed their own validation: not counted")}${th("Tampered", "attempts that changed the evaluation's test files or tampered with the test run")}</tr>`;
    const body = rows
      .map(
        (r) =>
          `<tr>${many ? label(r.agent) : ""}${label(r.repository)}${cell(r.instances)}${SWE_STATUSES.map((s) => cell(pct(r.rates[s]))).join("")}` +
          `${cell(pct(r.rates.fail_to_pass))}${cell(pct(r.rates.pass_to_pass))}${cell(pct(r.rates.patch_applied))}${cell(r.env_invalid)}${cell(r.tampered)}</tr>`,
      )
      .join("");
    return { title: "SWE", intro: "Percent of instances; instances that failed their own validation (env_invalid) are not counted.", table: `<table>${head}${body}</table>` };
  },
};
