import type { RateRow, Report } from "./summary.js";

/** A plain table; columns whose header is in `left` are left-aligned, the others (numbers) right-aligned. */
function table(header: string[], rows: string[][], left: readonly string[] = ["agent", "scenario", "difficulty", "sample", "status", "verdict", "error"]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (left.includes(header[i] ?? "") ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

const pct = (v: number | null): string => (v === null ? "-" : v.toFixed(2));

/** The columns of a rate row after its labels; errors are counted by whose fault they are. */
const RATE_HEAD = ["samples", "success", "solve", "infra errors", "agent errors", "other errors"];

function rateCells(r: RateRow): string[] {
  return [
    String(r.samples),
    pct(r.success_rate),
    r.solve_rate === null && r.unjudged > 0 ? `unjudged (${r.unjudged})` : pct(r.solve_rate),
    String(r.infrastructure_errors),
    String(r.agent_errors),
    String(r.other_errors),
  ];
}

/** The report as plain-text tables, for a terminal. */
export function formatReport(report: Report): string {
  const many = report.agents.length > 1;
  const who = (r: { agent: string }) => (many ? [r.agent] : []);
  const agentHead = many ? ["agent"] : [];
  const out: string[] = [];
  out.push(`agent: ${report.agents.join(", ") || "-"}`);
  out.push("");
  out.push("Success and solve rate (%) per scenario");
  out.push(table([...agentHead, "scenario", ...RATE_HEAD], report.totals.map((r) => [...who(r), r.scenario, ...rateCells(r)])));
  if (report.by_difficulty.length > 0) {
    out.push("");
    out.push("Per difficulty");
    out.push(
      table(
        [...agentHead, "scenario", "difficulty", ...RATE_HEAD],
        report.by_difficulty.map((r) => [...who(r), r.scenario, r.difficulty, ...rateCells(r)]),
      ),
    );
  }
  out.push("");
  out.push("Samples");
  out.push(
    table(
      [...agentHead, "sample", "scenario", "difficulty", "status", "verdict", "turns", "tokens", "seconds", "error"],
      report.samples.map((s) => [
        ...who(s),
        s.sample_id,
        s.scenario,
        s.difficulty,
        s.status,
        s.verdict,
        String(s.turns),
        String(s.tokens),
        (s.duration_ms / 1000).toFixed(1),
        s.error ? s.error.slice(0, 80) : "",
      ]),
    ),
  );
  const cost = report.cost_usd === null ? "" : `, cost $${report.cost_usd.toFixed(4)}`;
  out.push("");
  out.push(`tokens: ${report.tokens.prompt} prompt + ${report.tokens.completion} completion${cost}`);
  return out.join("\n");
}
