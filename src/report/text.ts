import type { Comparison, ComparisonCell, ComparisonRow, Measure, Outcome } from "./compare.js";
import type { RepeatRow } from "./repeats.js";
import type { RateRow, Report } from "./summary.js";
import type { TextKit } from "../families/definition.js";
import { reportSections } from "../families/registry.js";
import { causeLine } from "../runs/failures.js";

/** Headers of columns that hold words: left-aligned; every other column (numbers) is right-aligned. */
const LEFT = ["agent", "scenario", "difficulty", "language", "repository", "sample", "status", "verdict", "error"];

/** A plain table; columns whose header is in `left` are left-aligned, the others (numbers) right-aligned. */
function table(header: string[], rows: string[][], left: readonly string[] = LEFT): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (left.includes(header[i] ?? "") ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

const pct = (v: number | null): string => (v === null ? "-" : v.toFixed(2));

/**
 * The columns of a rate row after its labels: "completed" is the share that ran without a system error
 * (solved or not), "solved" the share the scorer judged solved; errors are counted by whose fault they are.
 */
const RATE_HEAD = ["samples", "completed", "solved", "infra errors", "agent errors", "other errors"];
/** With resolvability known (MCR samples that say): the ceiling, and the solve rate among resolvable samples. */
const CEILING_HEAD = ["ceiling", "solve (resolvable)"];

const solveCell = (r: { solve_rate: number | null; unjudged: number }): string =>
  r.solve_rate === null && r.unjudged > 0 ? `unjudged (${r.unjudged})` : pct(r.solve_rate);

function rateCells(r: RateRow, ceiling: boolean): string[] {
  return [
    String(r.samples),
    pct(r.success_rate),
    solveCell(r),
    String(r.infrastructure_errors),
    String(r.agent_errors),
    String(r.other_errors),
    ...(ceiling ? [pct(r.ceiling), pct(r.solve_rate_resolvable)] : []),
  ];
}

function repeatCells(r: RepeatRow): string[] {
  const k = r.pass_at_k;
  return [
    String(r.samples),
    String(r.k),
    r.mean_solve_rate === null && r.unjudged > 0 ? `unjudged (${r.unjudged})` : pct(r.mean_solve_rate),
    pct(r.standard_error),
    pct(k?.["1"] ?? null),
    pct(k?.[String(r.k)] ?? null),
  ];
}

/** The tokens of a report: "unknown" when no attempt's usage is known, and how many are left out when some are not. */
function tokensText(report: Pick<Report, "tokens" | "usage_unknown" | "totals">, label: string): string {
  const unknown = report.usage_unknown;
  const attempts = report.totals.filter((r) => r.scenario === "total").reduce((a, r) => a + r.samples, 0);
  if (unknown > 0 && unknown >= attempts) return `${label} unknown (the agent's model calls did not pass through gitgood)`;
  const counted = `${label} ${report.tokens.prompt} prompt + ${report.tokens.completion} completion`;
  return unknown > 0 ? `${counted} (usage unknown for ${unknown} attempt(s), not counted)` : counted;
}

/** The usage of a report as parts of a line: tokens and cost, the judges' when recorded, and cache hits when counted. */
export function usageParts(
  report: Pick<Report, "tokens" | "usage_unknown" | "totals" | "cost_usd" | "judge_tokens" | "judge_cost_usd" | "cache_hits"> & Partial<Pick<Report, "cost_per_solved">>,
  label = "tokens",
): string[] {
  const parts = [tokensText(report, label)];
  if (report.cost_usd !== null) parts.push(`cost $${report.cost_usd.toFixed(4)}`);
  if (report.judge_tokens !== null) parts.push(`judge tokens ${report.judge_tokens}`);
  if (report.judge_cost_usd !== null) parts.push(`judge cost $${report.judge_cost_usd.toFixed(4)}`);
  else if ((report.judge_tokens ?? 0) > 0) parts.push("judge cost not priced");
  const per = report.cost_per_solved;
  if (per) parts.push(`per solved task $${per.usd.toFixed(4)} (95% CI $${per.low.toFixed(4)}-$${per.high.toFixed(4)})`);
  if (report.cache_hits !== null) parts.push(`cache hits ${report.cache_hits}`);
  return parts;
}

/** The header line of a run whose agent programs ran without isolation (which only the user can ask for), else null. */
export function unisolatedLine(report: Report): string | null {
  const iso = report.isolation;
  return iso && !iso.isolated ? `isolation: ${iso.mode} (agent programs ran unisolated, as asked with --isolation ${iso.mode})` : null;
}

/** A family section's value in a report (undefined in a report read from a run without the family). */
export function sectionValue(report: Report, key: string): unknown {
  return (report as unknown as Record<string, unknown>)[key];
}

/** The report as plain-text tables, for a terminal. */
export function formatReport(report: Report): string {
  const many = report.agents.length > 1;
  const who = (r: { agent: string }) => (many ? [r.agent] : []);
  const agentHead = many ? ["agent"] : [];
  const ceiling = [...report.totals, ...report.by_difficulty].some((r) => r.resolvability_known > 0);
  const rateHead = [...RATE_HEAD, ...(ceiling ? CEILING_HEAD : [])];
  const out: string[] = [];
  out.push(`agent: ${report.agents.join(", ") || "-"}`);
  const unisolated = unisolatedLine(report);
  if (unisolated) out.push(unisolated);
  out.push("");
  out.push("Completed (ran without a system error) and solved, % of samples, per scenario");
  out.push(table([...agentHead, "scenario", ...rateHead], report.totals.map((r) => [...who(r), r.scenario, ...rateCells(r, ceiling)])));
  if (report.by_difficulty.length > 0) {
    out.push("");
    out.push("Per difficulty");
    out.push(
      table(
        [...agentHead, "scenario", "difficulty", ...rateHead],
        report.by_difficulty.map((r) => [...who(r), r.scenario, r.difficulty, ...rateCells(r, ceiling)]),
      ),
    );
  }
  if (report.by_language.some((r) => r.language !== "unknown")) {
    out.push("");
    out.push("Per language");
    out.push(
      table(
        [...agentHead, "language", "scenario", ...rateHead],
        report.by_language.map((r) => [...who(r), r.language, r.scenario, ...rateCells(r, ceiling)]),
      ),
    );
  }
  if (report.repeats.length > 0) {
    out.push("");
    out.push("Repeats: mean solve rate (%) over samples, its standard error, pass@1 and pass@k (k = fewest attempts of a sample)");
    out.push(
      table(
        [...agentHead, "scenario", "difficulty", "samples", "k", "mean solve", "± SE", "pass@1", "pass@k"],
        report.repeats.map((r) => [...who(r), r.scenario, r.difficulty, ...repeatCells(r)]),
      ),
    );
  }
  const kit: TextKit = { many, pct, table: (header, rows, left = []) => table(header, rows, [...LEFT, ...left]) };
  for (const section of reportSections()) {
    const value = sectionValue(report, section.key);
    if (value === undefined || section.isEmpty(value)) continue;
    out.push("");
    out.push(...section.text(value, kit));
  }
  const repeated = report.samples.some((s) => s.repeat > 0);
  out.push("");
  out.push("Samples");
  out.push(
    table(
      [...agentHead, "sample", "scenario", "difficulty", ...(repeated ? ["repeat"] : []), "status", "verdict", "turns", "tokens", "seconds", "error"],
      report.samples.map((s) => [
        ...who(s),
        s.sample_id,
        s.scenario,
        s.difficulty,
        ...(repeated ? [String(s.repeat)] : []),
        s.status,
        s.verdict,
        String(s.turns),
        s.tokens === null ? "unknown" : String(s.tokens),
        (s.duration_ms / 1000).toFixed(1),
        s.error ? s.error.slice(0, 80) : "",
      ]),
    ),
  );
  if (report.failures.length > 0) {
    out.push("");
    out.push("System errors, one line per distinct cause (code ×attempts (which): message)");
    for (const c of report.failures) out.push(causeLine(c));
  }
  out.push("");
  out.push(usageParts(report, "tokens:").join(", "));
  return out.join("\n");
}

const cellText = (c: ComparisonCell | null): [string, string] => (c === null ? ["-", "-"] : [pct(c.success_rate), solveCell(c)]);

/** A mean per attempt and the attempts it is counted over ("-" when no attempt says). */
const meanText = (m: Measure | null, show: (v: number) => string): string => (m === null || m.of === 0 ? "-" : `${show(m.mean)} (n=${m.of})`);

/** The spend and effort rows of one scenario row: a line per measure, a cell per column. */
function effortRows(r: ComparisonRow): string[][] {
  const line = (measure: string, cell: (c: ComparisonCell) => string): string[] => [r.scenario, measure, ...r.cells.map((c) => (c === null ? "-" : cell(c)))];
  return [
    line("cost/attempt", (c) => meanText(c.cost_usd, (v) => `$${v.toFixed(4)}`)),
    line("tokens/attempt", (c) => meanText(c.tokens, (v) => String(Math.round(v)))),
    line("turns/attempt", (c) => meanText(c.turns, (v) => v.toFixed(1))),
    line("time/attempt", (c) => meanText(c.duration_ms, (v) => `${(v / 1000).toFixed(1)}s`)),
    line("errors", (c) => `${c.errors}/${c.samples}`),
  ];
}

/** A sample's outcome in one run: its verdict, or solved/attempts with repeats; "-" when not attempted. */
function outcomeText(o: Outcome | null): string {
  if (o === null) return "-";
  return o.attempts === 1 ? o.verdict : `${o.solved}/${o.attempts} solved`;
}

/** A warning when the runs attempted different samples (the rates count only the shared ones), else null. */
function overlapLine(c: Pick<Comparison, "overlap" | "runs">): string | null {
  if (c.overlap.only.every((n) => n === 0)) return null;
  const alone = c.runs.map((r, i) => `${r.label} ${c.overlap.only[i] ?? 0}`).join(", ");
  return `warning: the runs attempted different samples; the rates count only the ${c.overlap.shared} sample × scenario pair(s) every run attempted (attempted by one run and not all, left out: ${alone})`;
}

/** Several runs side by side, as plain-text tables. */
export function formatComparison(c: Comparison): string {
  const out: string[] = [];
  out.push("runs:");
  for (const r of c.runs) out.push(`  ${r.label}: ${r.dir} (agent ${r.report.agents.join(", ") || "-"})`);
  const head = c.columns.flatMap((col) => [`${col.name} completed`, `${col.name} solved`]);
  const note = overlapLine(c);
  if (note) {
    out.push("");
    out.push(note);
  }
  out.push("");
  out.push(`Completed and solved, % of the ${c.overlap.shared} sample(s) every run attempted, per scenario`);
  out.push(table(["scenario", ...head], c.totals.map((r) => [r.scenario, ...r.cells.flatMap(cellText)])));
  out.push("");
  out.push(`Spend and effort on the same ${c.overlap.shared} sample(s): the mean per attempt, over the n attempts that say (priced, usage known); errors of attempts`);
  out.push(table(["scenario", "measure", ...c.columns.map((col) => col.name)], c.totals.flatMap(effortRows), ["scenario", "measure"]));
  if (c.by_difficulty.length > 0) {
    out.push("");
    out.push("Per difficulty");
    out.push(table(["scenario", "difficulty", ...head], c.by_difficulty.map((r) => [r.scenario, r.difficulty, ...r.cells.flatMap(cellText)])));
  }
  out.push("");
  out.push(`Samples solved in one run and not in another: ${c.differences.length}`);
  if (c.differences.length > 0) {
    const runs = c.runs.map((r) => r.label);
    out.push(
      table(
        ["sample", "scenario", "difficulty", ...runs],
        c.differences.map((d) => [`${d.sample_id}${d.variant}`, d.scenario, d.difficulty, ...d.outcomes.map(outcomeText)]),
        ["sample", "scenario", "difficulty", ...runs],
      ),
    );
  }
  return out.join("\n");
}
