/**
 * The leaderboard page's style and script (src/leaderboard/site.ts puts them in the page, allowed by their
 * hashes). The script reads the page's JSON and draws the chosen view: the table, the cost–solve Pareto
 * chart with its data as a table, and the tasks with their dates. Everything a record says is set as text
 * (`textContent`, attribute values), never parsed as HTML.
 */
export const LEADERBOARD_STYLE = `
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d232b;background:#f6f7f9}
header{padding:10px 16px;background:#1d232b;color:#fff}header h1{font-size:17px;margin:0}
main{padding:12px 16px}
h2{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;width:100%;background:#fff;margin:4px 0 12px}
th,td{border-bottom:1px solid #e3e6ea;padding:4px 6px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#eef1f4;font-weight:600;font-size:12px}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.controls{display:flex;flex-wrap:wrap;gap:12px;align-items:center;margin:8px 0}
.controls select{font:inherit;padding:3px 6px;max-width:260px}
.warn{background:#fff4d6;border:1px solid #e0c060;padding:8px 12px;margin:8px 0}
.muted{color:#6b7480}
.chart{background:#fff;border:1px solid #e3e6ea;padding:8px;display:inline-block;max-width:100%}
.chart svg{max-width:100%;height:auto}
svg text{font:11px system-ui,sans-serif;fill:#1d232b}
.legend{display:flex;flex-wrap:wrap;gap:10px;margin:6px 0}.legend i{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:4px}
.contaminated{color:#a0331c;font-weight:600}
`;

export const LEADERBOARD_SCRIPT = String.raw`
"use strict";
const data = JSON.parse(document.getElementById("lb-data").textContent);
const COLORS = ["#2f6fdb", "#d2603a", "#2a9d5c", "#8e44ad", "#c49a00", "#1f9bb0", "#b03060", "#5b6b00"];
const SVG = "http://www.w3.org/2000/svg";
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined) e.append(typeof kid === "string" ? document.createTextNode(kid) : kid);
  return e;
}
function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}
function table(id, head, rows, numeric) {
  return el("table", { id: id }, el("thead", {}, el("tr", {}, head.map((h, i) => el("th", numeric.includes(i) ? { class: "num" } : {}, h)))),
    el("tbody", {}, rows.map((r) => el("tr", {}, r.map((c, i) => el("td", numeric.includes(i) ? { class: "num" } : {}, c))))));
}
const pct = (v) => (v === null ? "–" : v.toFixed(2) + "%");
const money = (x) => (x === 0 ? "$0" : x >= 1 ? "$" + x.toFixed(2) : "$" + x.toPrecision(3));
const num = (v, d) => (v === null ? "–" : v.toFixed(d));
const colorOf = (name) => COLORS[data.views[0].entries.findIndex((e) => e.name === name) % COLORS.length] || COLORS[0];
function costPerSolved(e) {
  if (e.cost_per_solved) return money(e.cost_per_solved.usd) + " (95% CI " + money(e.cost_per_solved.low) + "–" + money(e.cost_per_solved.high) + ")";
  if (e.cost_unknown > 0) return "unknown (" + e.cost_unknown + " of " + e.attempts + " attempts without a known cost)";
  return e.solved === 0 ? "– (nothing solved)" : "–";
}
function costPerAttempt(e) {
  if (e.cost_per_attempt_usd !== null) return money(e.cost_per_attempt_usd);
  return e.cost_unknown > 0 ? "unknown (" + e.cost_unknown + " of " + e.attempts + ")" : "–";
}
function tokens(e) {
  if (e.tokens_per_attempt === null) return e.usage_unknown > 0 ? "unknown" : "–";
  return num(e.tokens_per_attempt, 1) + (e.usage_unknown > 0 ? " (" + e.usage_unknown + " attempts unknown)" : "");
}
function cutoff(e) {
  if (e.contamination === "no_model") return "no model";
  return e.cutoff === null ? "no stated cut-off" : e.cutoff;
}
function passAtK(e) {
  if (!e.pass_at_k) return "–";
  return Object.entries(e.pass_at_k).map(([k, v]) => "pass@" + k + " " + pct(v)).join(" · ");
}
function probes(e) {
  const p = e.history_probes;
  return p.rate === null ? "not audited" : pct(p.rate) + " (" + p.probing + "/" + p.audited + ", " + p.probes + " probes)";
}
function tasksCell(e) {
  return String(e.tasks) + (e.excluded_tasks > 0 ? " (" + e.excluded_tasks + " left out)" : "");
}
function boardTable(view) {
  const head = ["rank", "agent", "model", "cut-off", "tasks", "attempts", "solve rate", "± SE", "pass@k", "cost per solved task", "cost per attempt", "tokens per attempt", "seconds per attempt", "git tool calls per attempt", "history probes", "Pareto"];
  const rows = view.entries.map((e) => [e.rank === null ? "–" : String(e.rank), e.name, e.model === null ? "none" : e.model, cutoff(e), tasksCell(e), String(e.attempts),
    pct(e.solve_rate), e.standard_error === null ? "–" : "± " + e.standard_error.toFixed(2) + " pp", passAtK(e), costPerSolved(e), costPerAttempt(e), tokens(e),
    num(e.seconds_per_attempt, 2), num(e.tool_calls_per_attempt, 2), probes(e), e.pareto ? "yes" : "no"]);
  return table("board-table", head, rows, [0, 4, 5, 6, 7, 10, 11, 12, 13]);
}
/* The cost–solve chart: mean cost per attempt (US$) across, solve rate up; the front joins the rows no other beats on both. */
function paretoChart(view) {
  const pts = view.entries.filter((e) => e.solve_rate !== null && e.cost_per_attempt_usd !== null);
  const left = view.entries.filter((e) => !pts.includes(e));
  const W = 560, H = 340, x0 = 70, x1 = W - 20, y0 = 20, y1 = H - 56;
  const g = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": "solve rate against cost per attempt" });
  const top = Math.max(0, ...pts.map((p) => p.cost_per_attempt_usd));
  const xmax = (top > 0 ? top : 1) * 1.1;
  const X = (c) => x0 + ((x1 - x0) * c) / xmax, Y = (s) => y1 - ((y1 - y0) * s) / 100;
  g.append(svg("line", { x1: x0, y1: y1, x2: x1, y2: y1, stroke: "#888" }), svg("line", { x1: x0, y1: y0, x2: x0, y2: y1, stroke: "#888" }));
  for (const p of [0, 25, 50, 75, 100]) g.append(svg("line", { x1: x0, x2: x1, y1: Y(p), y2: Y(p), stroke: "#eee" }), svg("text", { x: x0 - 6, y: Y(p) + 4, "text-anchor": "end" }, p + "%"));
  for (const f of [0, 0.5, 1]) g.append(svg("text", { x: X(xmax * f / 1.1), y: y1 + 16, "text-anchor": "middle" }, money(xmax * f / 1.1)));
  g.append(svg("text", { x: (x0 + x1) / 2, y: H - 12, "text-anchor": "middle", class: "x-label" }, "mean cost per attempt (US$, agent and judges)"));
  g.append(svg("text", { x: 14, y: (y0 + y1) / 2, transform: "rotate(-90 14 " + (y0 + y1) / 2 + ")", "text-anchor": "middle", class: "y-label" }, "solve rate (% of tasks, mean over repeats)"));
  const front = pts.filter((p) => p.pareto).sort((a, b) => a.cost_per_attempt_usd - b.cost_per_attempt_usd);
  if (front.length > 1) g.append(svg("polyline", { points: front.map((p) => X(p.cost_per_attempt_usd) + "," + Y(p.solve_rate)).join(" "), fill: "none", stroke: "#888", "stroke-dasharray": "4 3", class: "front" }));
  for (const p of pts) {
    const c = svg("circle", { cx: X(p.cost_per_attempt_usd), cy: Y(p.solve_rate), r: p.pareto ? 6 : 4, fill: colorOf(p.name), stroke: p.pareto ? "#1d232b" : "none" });
    c.append(svg("title", {}, p.name + ": " + pct(p.solve_rate) + " at " + money(p.cost_per_attempt_usd) + " per attempt"));
    g.append(c);
  }
  const legend = el("div", { class: "legend" }, pts.map((p) => {
    const swatch = el("i", {});
    swatch.style.background = colorOf(p.name);
    return el("span", {}, swatch, p.name + (p.pareto ? " (on the front)" : ""));
  }));
  const note = left.length ? el("p", { class: "muted", id: "not-plotted" }, "Not plotted (no solve rate, or a cost that is unknown): " + left.map((e) => e.name).join(", ")) : null;
  const rows = pts.map((p) => [p.name, money(p.cost_per_attempt_usd), pct(p.solve_rate), p.pareto ? "yes" : "no"]);
  return el("div", { class: "chart" }, g, legend, note, table("chart-data", ["agent", "mean cost per attempt (US$)", "solve rate (%)", "on the Pareto front"], rows, [1, 2]));
}
function tasksTable(family, repository) {
  const tasks = data.tasks.filter((t) => (family === null || t.family === family) && (repository === null || t.repository === repository));
  const rows = tasks.map((t) => [t.sample_id, t.scenario, t.family, t.repository, t.date === null ? "unknown" : t.date,
    t.possibly_contaminated_for.length ? el("span", { class: "contaminated" }, "possibly contaminated: " + t.possibly_contaminated_for.join(", ")) : "–"]);
  return table("tasks-table", ["sample", "scenario", "family", "repository", "date", "for the models"], rows, []);
}
function option(value, text) {
  return el("option", { value: value }, text);
}
const pick = (id) => { const v = document.getElementById(id).value; return v === "" ? null : v; };
function draw() {
  const family = pick("family"), repository = pick("repository"), tasks = document.getElementById("tasks").value;
  const view = data.views.find((v) => v.family === family && v.repository === repository && v.tasks === tasks);
  const out = document.getElementById("view");
  out.replaceChildren();
  if (!view) {
    out.append(el("p", { id: "empty-view" }, "No task of this family comes from this repository."));
    return;
  }
  out.append(el("h2", {}, "Ranking"), boardTable(view), el("h2", {}, "Cost against solve rate"), paretoChart(view), el("h2", {}, "Tasks"), tasksTable(family, repository));
}
function start() {
  const controls = document.getElementById("controls");
  controls.append(
    el("label", {}, "family ", el("select", { id: "family" }, option("", "all families"), data.families.map((f) => option(f, f)))),
    el("label", {}, "repository ", el("select", { id: "repository" }, option("", "all repositories"), data.repositories.map((r) => option(r, r)))),
    el("label", {}, "tasks ", el("select", { id: "tasks" }, option("all", "all tasks"), option("after_cutoff", "only tasks dated after each model's training cut-off"))),
  );
  for (const id of ["family", "repository", "tasks"]) document.getElementById(id).addEventListener("change", draw);
  if (data.mixed) document.getElementById("mixed").append(el("p", {}, "These runs are not over the same samples and settings; they were ranked anyway (--allow-mixed). What differs:"), el("ul", {}, data.mixed.map((line) => el("li", {}, line))));
  else document.getElementById("mixed").remove();
  document.getElementById("runs").append(el("ul", {}, data.runs.map((r) => el("li", {}, r.label + ": " + r.agents.join(", ") + (r.model ? " (model " + r.model + ")" : "") + ", " + r.repeats + " repeat(s), samples " + (r.samples_digest || "without a digest")))));
  if (data.models.length) document.getElementById("cutoffs").append(table("models-table", ["model", "training cut-off"], data.models.map((m) => [m.model, m.cutoff]), []));
  draw();
}
start();
`;
