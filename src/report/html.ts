import type { RateRow, Report } from "./summary.js";

const escape = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

const pct = (v: number | null): string => (v === null ? "–" : `${v.toFixed(2)} %`);

function rateTable(rows: readonly RateRow[], withDifficulty: boolean): string {
  const many = new Set(rows.map((r) => r.agent)).size > 1;
  const head =
    `<tr>${many ? "<th>Agent</th>" : ""}<th>Scenario</th>${withDifficulty ? "<th>Difficulty</th>" : ""}<th>Samples</th><th>Success</th><th>Solve</th>` +
    `<th title="git, disk, model endpoint, time-out">Infrastructure errors</th><th title="the agent crashed, gave up or went away">Agent errors</th>` +
    `<th title="data and internal">Other errors</th></tr>`;
  const body = rows
    .map(
      (r) =>
        `<tr>${many ? `<td>${escape(r.agent)}</td>` : ""}<td>${escape(r.scenario)}</td>${withDifficulty ? `<td>${r.difficulty}</td>` : ""}<td class="n">${r.samples}</td>` +
        `<td class="n">${pct(r.success_rate)}</td><td class="n">${r.solve_rate === null && r.unjudged > 0 ? `unjudged (${r.unjudged})` : pct(r.solve_rate)}</td>` +
        `<td class="n">${r.infrastructure_errors}</td><td class="n">${r.agent_errors}</td><td class="n">${r.other_errors}</td></tr>`,
    )
    .join("");
  return `<table>${head}${body}</table>`;
}

/** Horizontal bars of success and solve rate per scenario, as inline SVG. */
function chart(rows: readonly RateRow[]): string {
  const many = new Set(rows.map((r) => r.agent)).size > 1;
  const barH = 14;
  const rowH = 2 * barH + 14;
  const width = 520;
  const x0 = 70;
  const scale = (width - x0 - 130) / 100;
  const parts: string[] = [];
  rows.forEach((r, i) => {
    const y = 10 + i * rowH;
    parts.push(`<text x="0" y="${y + barH}" class="lbl">${escape(r.scenario)}${many ? ` ${escape(r.agent.endsWith("+memory") ? "+mem" : "")}` : ""}</text>`);
    const bars: [string, number | null][] = [
      ["success", r.success_rate],
      ["solve", r.solve_rate],
    ];
    const unjudged = r.solve_rate === null && r.unjudged > 0;
    bars.forEach(([name, v], j) => {
      const w = (v ?? 0) * scale;
      const yy = y + j * barH;
      parts.push(`<rect x="${x0}" y="${yy}" width="${w.toFixed(1)}" height="${barH - 2}" class="${name}"><title>${name} ${pct(v)}</title></rect>`);
      const label = name === "solve" && unjudged ? "solve: unjudged" : `${name} ${pct(v)}`;
      parts.push(`<text x="${x0 + w + 4}" y="${yy + barH - 4}" class="val">${label}</text>`);
    });
  });
  const h = 20 + rows.length * rowH;
  return `<svg role="img" aria-label="success and solve rate per scenario" width="${width}" height="${h}" viewBox="0 0 ${width} ${h}">${parts.join("")}</svg>`;
}

export interface SampleDetail {
  /** Trajectory events (any JSON), shown as a log. */
  trajectory?: unknown;
  /** A diff of the agent's result against the ground truth. */
  diff?: string;
}

/**
 * The report as one static HTML page: the tables, a chart, and per sample its trajectory and its diff
 * against the ground truth. Needs no network and no script to read.
 */
export function renderHtml(report: Report, details: ReadonlyMap<string, SampleDetail> = new Map(), title = "gitgood report"): string {
  const samples = report.samples
    .map((s) => {
      const key = `${s.sample_id}.${s.scenario}${s.agent.endsWith("+memory") ? "+memory" : ""}`;
      const d = details.get(key);
      const events = Array.isArray((d?.trajectory as { events?: unknown[] } | undefined)?.events)
        ? ((d?.trajectory as { events: unknown[] }).events)
        : [];
      const log = events
        .map((e) => {
          const ev = e as Record<string, unknown>;
          const body =
            ev.type === "tool_call"
              ? `${String(ev.tool)} ${JSON.stringify(ev.args)}`
              : ev.type === "tool_result"
                ? String(ev.output)
                : ev.type === "model"
                  ? JSON.stringify(ev.message)
                  : String(ev.text ?? "");
          return `<div class="ev ${escape(String(ev.type))}"><span class="t">${escape(String(ev.type))}</span><pre>${escape(body)}</pre></div>`;
        })
        .join("");
      return `<details><summary><b>${escape(s.sample_id)}</b> ${escape(s.agent)} · ${escape(s.scenario)} · ${s.difficulty} · <span class="${s.verdict}">${s.verdict}</span>` +
        ` · ${s.turns} turns · ${s.tokens} tokens${s.error ? ` · ${escape(s.error)}` : ""}</summary>` +
        (d?.diff !== undefined
          ? `<h4>Against the ground truth</h4>${d.diff ? `<pre class="diff">${escape(d.diff)}</pre>` : "<p>Identical to the ground truth.</p>"}`
          : "") +
        (log ? `<h4>Trajectory</h4>${log}` : "") +
        `</details>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.25em .6em}th{background:#f3f3f3}
td.n{text-align:right}pre{white-space:pre-wrap;margin:.2em 0;font-size:12px}
.success{fill:#4c9a6a}.solve{fill:#3a6fb0}.lbl,.val{font-size:12px}
details{border-bottom:1px solid #eee;padding:.3em 0}.solved{color:#2a7a3a}.unsolved,.error{color:#b03a2e}
.ev{border-left:3px solid #ddd;padding-left:.5em;margin:.2em 0}.ev .t{font-size:11px;color:#777}
.ev.tool_call{border-color:#3a6fb0}.ev.tool_result{border-color:#4c9a6a}.ev.model{border-color:#a06cc0}
pre.diff{background:#fafafa;border:1px solid #eee;padding:.5em}
</style></head><body>
<h1>${escape(title)}</h1>
<p>Agent: ${escape(report.agents.join(", ") || "–")} · tokens ${report.tokens.prompt} prompt + ${report.tokens.completion} completion${report.cost_usd === null ? "" : ` · cost $${report.cost_usd.toFixed(4)}`}</p>
<h2>Success and solve rate per scenario</h2>
${rateTable(report.totals, false)}
${chart(report.totals)}
<h2>Per difficulty</h2>
${rateTable(report.by_difficulty, true)}
<h2>Samples</h2>
${samples}
</body></html>
`;
}
