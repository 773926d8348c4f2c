import type { Comparison, ComparisonRow } from "./compare.js";
import { variantOf } from "../runs/fields.js";
import type { RepeatRow } from "./repeats.js";
import type { LanguageRow, RateRow, Report, SampleRow } from "./summary.js";
import type { HtmlKit } from "../families/definition.js";
import { reportSections } from "../families/registry.js";
import { outcomeText, sectionValue, unisolatedLine } from "./text.js";

const escape = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

const pct = (v: number | null): string => (v === null ? "–" : `${v.toFixed(2)} %`);

const solveCell = (r: { solve_rate: number | null; unjudged: number }): string =>
  r.solve_rate === null && r.unjudged > 0 ? `unjudged (${r.unjudged})` : pct(r.solve_rate);

const cell = (text: string | number): string => `<td class="n">${escape(String(text))}</td>`;
const label = (text: string): string => `<td>${escape(text)}</td>`;
const th = (text: string, title?: string): string => `<th${title ? ` title="${escape(title)}"` : ""}>${escape(text)}</th>`;

function rateTable(rows: readonly (RateRow | LanguageRow)[], opts: { difficulty?: boolean; language?: boolean; ceiling: boolean }): string {
  const many = new Set(rows.map((r) => r.agent)).size > 1;
  const head =
    `<tr>${many ? th("Agent") : ""}${opts.language ? th("Language") : ""}${th("Scenario")}${opts.difficulty ? th("Difficulty") : ""}${th("Samples")}${th("Success")}${th("Solve")}` +
    `${th("Infrastructure errors", "git, disk, model endpoint, time-out")}${th("Agent errors", "the agent crashed, gave up or went away")}` +
    `${th("Other errors", "data and internal")}` +
    (opts.ceiling ? `${th("Ceiling", "share of resolvable samples: the most any agent with the published tools can solve")}${th("Solve (resolvable)", "solve rate among the resolvable samples")}` : "") +
    `</tr>`;
  const body = rows
    .map(
      (r) =>
        `<tr>${many ? label(r.agent) : ""}${opts.language ? label("language" in r ? r.language : "") : ""}${label(r.scenario)}${opts.difficulty ? label(r.difficulty) : ""}${cell(r.samples)}` +
        `${cell(pct(r.success_rate))}${cell(solveCell(r))}${cell(r.infrastructure_errors)}${cell(r.agent_errors)}${cell(r.other_errors)}` +
        (opts.ceiling ? `${cell(pct(r.ceiling))}${cell(pct(r.solve_rate_resolvable))}` : "") +
        `</tr>`,
    )
    .join("");
  return `<table>${head}${body}</table>`;
}

function repeatTable(rows: readonly RepeatRow[]): string {
  const many = new Set(rows.map((r) => r.agent)).size > 1;
  const head =
    `<tr>${many ? th("Agent") : ""}${th("Scenario")}${th("Difficulty")}${th("Samples")}${th("k", "the fewest attempts of a sample")}` +
    `${th("Mean solve")}${th("± SE", "standard error of the mean over samples")}${th("pass@1")}${th("pass@k")}</tr>`;
  const body = rows
    .map(
      (r) =>
        `<tr>${many ? label(r.agent) : ""}${label(r.scenario)}${label(r.difficulty)}${cell(r.samples)}${cell(r.k)}` +
        `${cell(r.mean_solve_rate === null && r.unjudged > 0 ? `unjudged (${r.unjudged})` : pct(r.mean_solve_rate))}${cell(pct(r.standard_error))}` +
        `${cell(pct(r.pass_at_k?.["1"] ?? null))}${cell(pct(r.pass_at_k?.[String(r.k)] ?? null))}</tr>`,
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
    parts.push(`<text x="0" y="${y + barH}" class="lbl">${escape(r.scenario)}${many && variantOf(r.agent) ? " +mem" : ""}</text>`);
    const bars: [string, number | null][] = [
      ["success", r.success_rate],
      ["solve", r.solve_rate],
    ];
    const unjudged = r.solve_rate === null && r.unjudged > 0;
    bars.forEach(([name, v], j) => {
      const w = (v ?? 0) * scale;
      const yy = y + j * barH;
      parts.push(`<rect x="${x0}" y="${yy}" width="${w.toFixed(1)}" height="${barH - 2}" class="${name}"><title>${name} ${pct(v)}</title></rect>`);
      const text = name === "solve" && unjudged ? "solve: unjudged" : `${name} ${pct(v)}`;
      parts.push(`<text x="${x0 + w + 4}" y="${yy + barH - 4}" class="val">${text}</text>`);
    });
  });
  const h = 20 + rows.length * rowH;
  return `<svg role="img" aria-label="success and solve rate per scenario" width="${width}" height="${h}" viewBox="0 0 ${width} ${h}">${parts.join("")}</svg>`;
}

function comparisonTable(c: Comparison, rows: readonly ComparisonRow[], withDifficulty: boolean): string {
  const head =
    `<tr>${th("Scenario")}${withDifficulty ? th("Difficulty") : ""}` +
    c.columns.map((col) => `${th(`${col.name} success`)}${th(`${col.name} solve`)}`).join("") +
    `</tr>`;
  const body = rows
    .map(
      (r) =>
        `<tr>${label(r.scenario)}${withDifficulty ? label(r.difficulty) : ""}` +
        r.cells.map((x) => (x === null ? `${cell("–")}${cell("–")}` : `${cell(pct(x.success_rate))}${cell(solveCell(x))}`)).join("") +
        `</tr>`,
    )
    .join("");
  return `<table>${head}${body}</table>`;
}

function differencesTable(c: Comparison): string {
  if (c.differences.length === 0) return "<p>None: every sample the runs share has the same outcome in each.</p>";
  const head = `<tr>${th("Sample")}${th("Scenario")}${th("Difficulty")}${c.runs.map((r) => th(r.label)).join("")}</tr>`;
  const body = c.differences
    .map(
      (d) =>
        `<tr>${label(`${d.sample_id}${d.variant}`)}${label(d.scenario)}${label(d.difficulty)}` +
        d.outcomes.map((o) => `<td class="${o?.verdict === "solved" ? "solved" : o === null ? "" : "unsolved"}">${escape(outcomeText(o))}</td>`).join("") +
        `</tr>`,
    )
    .join("");
  return `<table>${head}${body}</table>`;
}

export interface SampleDetail {
  /** Trajectory events (any JSON), shown as a log. */
  trajectory?: unknown;
  /** A diff of the agent's result against the ground truth. */
  diff?: string;
  /** Where the trajectory file is, relative to the page (a link). */
  href?: string;
}

/** A run shown on a page: its report, and per record key the detail of its samples. */
export interface HtmlRun {
  label: string;
  report: Report;
  details: ReadonlyMap<string, SampleDetail>;
}

function trajectoryLog(trajectory: unknown): string {
  const events = Array.isArray((trajectory as { events?: unknown[] } | undefined)?.events) ? (trajectory as { events: unknown[] }).events : [];
  return events
    .map((e) => {
      const ev = (e ?? {}) as Record<string, unknown>;
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
}

/**
 * The comparison with the ground truth. "Identical" is about the whole result: for MCR the whole tree
 * (the exact-match scorer's `tree_matches`), not only the conflicted files the diff shows.
 */
function groundTruth(s: SampleRow, diff: string | undefined): string {
  if (diff === undefined) return "";
  let body: string;
  if (diff) body = `<pre class="diff">${escape(diff)}</pre>`;
  else if (s.tree_matches === false) {
    body =
      "<p>The conflicted files match the recorded merge, but the resulting tree is not the merge's tree: the recorded merge also changed text outside the conflict regions or other files" +
      (s.resolvable === false ? " (the sample is not resolvable with the published tools)" : "") +
      ".</p>";
  } else body = "<p>Identical to the ground truth.</p>";
  return `<h4>Against the ground truth</h4>${body}`;
}

function sampleItem(run: HtmlRun, s: SampleRow, severalRuns: boolean, differs: boolean): string {
  const d = run.details.get(s.key);
  const log = trajectoryLog(d?.trajectory);
  const attrs = [
    ["run", run.label],
    ["scenario", s.scenario],
    ["difficulty", s.difficulty],
    ["language", s.language],
    ["verdict", s.verdict],
    ["differs", differs ? "1" : ""],
  ]
    .map(([k, v]) => `data-${k}="${escape(v ?? "")}"`)
    .join(" ");
  return (
    `<details class="sample" ${attrs}><summary>${severalRuns ? `[${escape(run.label)}] ` : ""}<b>${escape(s.sample_id)}</b> ${escape(s.agent)} · ${escape(s.scenario)} · ${escape(s.difficulty)}` +
    ` · ${escape(s.language)}${s.repeat > 0 ? ` · repeat ${s.repeat}` : ""} · <span class="${escape(s.verdict)}">${escape(s.verdict)}</span>` +
    ` · ${s.turns} turns · ${s.tokens} tokens${s.error ? ` · ${escape(s.error)}` : ""}</summary>` +
    groundTruth(s, d?.diff) +
    (d?.href ? `<p><a href="${escape(d.href)}">trajectory file</a></p>` : "") +
    (log ? `<h4>Trajectory</h4>${log}` : "") +
    `</details>`
  );
}

/** The filter controls: one choice per field, built from the values the samples have. */
function filters(runs: readonly HtmlRun[], comparing: boolean): string {
  const all = runs.flatMap((r) => r.report.samples);
  const select = (field: string, what: string, values: string[]) =>
    `<label>${escape(what)} <select data-filter="${field}"><option value="">all</option>` +
    [...new Set(values)].sort().map((v) => `<option value="${escape(v)}">${escape(v)}</option>`).join("") +
    `</select></label>`;
  return (
    `<p class="filters">` +
    (comparing ? select("run", "run", runs.map((r) => r.label)) : "") +
    select("scenario", "scenario", all.map((s) => s.scenario)) +
    select("difficulty", "difficulty", all.map((s) => s.difficulty)) +
    select("language", "language", all.map((s) => s.language)) +
    select("verdict", "verdict", all.map((s) => s.verdict)) +
    (comparing ? `<label><input type="checkbox" data-filter="differs" value="1"> only samples the runs disagree on</label>` : "") +
    ` <span id="shown">${all.length}</span> shown</p>`
  );
}

/** Hides the samples that do not match every chosen filter; reads only the page's own attributes. */
const SCRIPT = `<script>
(function () {
  var controls = document.querySelectorAll("[data-filter]");
  function apply() {
    var want = {};
    controls.forEach(function (c) { want[c.getAttribute("data-filter")] = c.type === "checkbox" ? (c.checked ? c.value : "") : c.value; });
    var shown = 0;
    document.querySelectorAll(".sample").forEach(function (s) {
      var ok = Object.keys(want).every(function (k) { return want[k] === "" || s.getAttribute("data-" + k) === want[k]; });
      s.hidden = !ok;
      if (ok) shown++;
    });
    document.getElementById("shown").textContent = String(shown);
  }
  controls.forEach(function (c) { c.addEventListener("change", apply); });
})();
</script>`;

const STYLE = `<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.25em .6em}th{background:#f3f3f3}
td.n{text-align:right}pre{white-space:pre-wrap;margin:.2em 0;font-size:12px}
.success{fill:#4c9a6a}.solve{fill:#3a6fb0}.lbl,.val{font-size:12px}
details{border-bottom:1px solid #eee;padding:.3em 0}.solved{color:#2a7a3a}.unsolved,.error{color:#b03a2e}
.ev{border-left:3px solid #ddd;padding-left:.5em;margin:.2em 0}.ev .t{font-size:11px;color:#777}
.ev.tool_call{border-color:#3a6fb0}.ev.tool_result{border-color:#4c9a6a}.ev.model{border-color:#a06cc0}
pre.diff{background:#fafafa;border:1px solid #eee;padding:.5em}.filters label{margin-right:1em}
</style>`;

function usage(report: Report): string {
  const parts = [`tokens ${report.tokens.prompt} prompt + ${report.tokens.completion} completion`];
  if (report.cost_usd !== null) parts.push(`cost $${report.cost_usd.toFixed(4)}`);
  if (report.judge_tokens !== null) parts.push(`judge tokens ${report.judge_tokens}`);
  if (report.judge_cost_usd !== null) parts.push(`judge cost $${report.judge_cost_usd.toFixed(4)}`);
  else if ((report.judge_tokens ?? 0) > 0) parts.push("judge cost not priced");
  if (report.cache_hits !== null) parts.push(`cache hits ${report.cache_hits}`);
  return parts.join(" · ");
}

/** A run's tables after the per-scenario and per-difficulty ones: languages, repeats, the families' sections (each when there is something to show). */
function moreTables(report: Report, ceiling: boolean, heading: string): string {
  const parts: string[] = [];
  if (report.by_language.some((r) => r.language !== "unknown")) {
    parts.push(`<${heading}>Per language</${heading}>${rateTable(report.by_language, { language: true, ceiling })}`);
  }
  if (report.repeats.length > 0) {
    parts.push(`<${heading}>Repeats</${heading}><p>Mean solve rate over the samples (each sample's share of solved attempts), its standard error, and pass@k (unbiased estimator) for k = 1 and k = the fewest attempts of a sample.</p>${repeatTable(report.repeats)}`);
  }
  const kit: HtmlKit = { th, cell, label, pct, escape };
  for (const section of reportSections()) {
    const value = sectionValue(report, section.key);
    if (value === undefined || section.isEmpty(value)) continue;
    const { title, intro, table } = section.html(value, kit);
    parts.push(`<${heading}>${escape(title)}</${heading}><p>${escape(intro)}</p>${table}`);
  }
  return parts.join("\n");
}

const hasCeiling = (report: Report): boolean => [...report.totals, ...report.by_difficulty].some((r) => r.resolvability_known > 0);

function samplesSection(runs: readonly HtmlRun[], differing: ReadonlySet<string>): string {
  const comparing = runs.length > 1;
  const items = runs
    .flatMap((run) =>
      run.report.samples.map((s) => sampleItem(run, s, comparing, differing.has(JSON.stringify([s.scenario, s.sample_id, variantOf(s.agent)])))),
    )
    .join("\n");
  return `<h2>Samples</h2>\n${filters(runs, comparing)}\n${items}`;
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
${STYLE}</head><body>
<h1>${escape(title)}</h1>
${body}
${SCRIPT}
</body></html>
`;
}

/**
 * The report as one static HTML page: the tables, a chart, and per sample its trajectory and its diff
 * against the ground truth, with filters by scenario, difficulty, language and verdict (inline script;
 * the page reads without it). Needs no network.
 */
export function renderHtml(report: Report, details: ReadonlyMap<string, SampleDetail> = new Map(), title = "gitgood report"): string {
  const ceiling = hasCeiling(report);
  const body = [
    `<p>Agent: ${escape(report.agents.join(", ") || "–")} · ${usage(report)}</p>`,
    ...(unisolatedLine(report) ? [`<p><b>${escape(unisolatedLine(report) ?? "")}</b></p>`] : []),
    `<h2>Success and solve rate per scenario</h2>`,
    rateTable(report.totals, { ceiling }),
    chart(report.totals),
    `<h2>Per difficulty</h2>`,
    rateTable(report.by_difficulty, { difficulty: true, ceiling }),
    moreTables(report, ceiling, "h2"),
    samplesSection([{ label: "", report, details }], new Set()),
  ];
  return page(title, body.join("\n"));
}

/** Several runs on one page: side-by-side tables, the samples they disagree on, each run's other tables, and every sample with filters. */
export function renderComparisonHtml(c: Comparison, runs: readonly HtmlRun[], title = "gitgood comparison"): string {
  const differing = new Set(c.differences.map((d) => JSON.stringify([d.scenario, d.sample_id, d.variant])));
  const body = [
    `<ul>${c.runs.map((r) => `<li><b>${escape(r.label)}</b>: ${escape(r.dir)} · agent ${escape(r.report.agents.join(", ") || "–")} · ${usage(r.report)}</li>`).join("")}</ul>`,
    `<h2>Success and solve rate per scenario</h2>`,
    comparisonTable(c, c.totals, false),
    `<h2>Per difficulty</h2>`,
    comparisonTable(c, c.by_difficulty, true),
    `<h2>Samples solved in one run and not in another</h2>`,
    differencesTable(c),
    ...runs.map((run) => {
      const more = moreTables(run.report, hasCeiling(run.report), "h3");
      return more ? `<h2>${escape(run.label)}</h2>\n${more}` : "";
    }),
    samplesSection(runs, differing),
  ];
  return page(title, body.filter(Boolean).join("\n"));
}
