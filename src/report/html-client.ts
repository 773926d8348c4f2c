/**
 * The viewer's page, shared by `gitgood view` (its server hands the data over) and `gitgood report --html`
 * (the page carries it): one document with its style and script inline, no network fonts, no CDN. The
 * script loads the index once (again every few seconds while "live" is on, served only) and each
 * attempt only when it is opened. Every text from a run is put in the page as text, never as HTML; the
 * families' report tables, written with the report's escaping kit, are the one exception.
 */

/** The page's body: the header with its tabs, and the three views the script fills. */
export function pageBody(title: string, live: boolean): string {
  return `<header><h1>${escapeHtml(title)}</h1>
<nav><button data-tab="summary" class="on">Summary</button><button data-tab="samples">Samples</button><button data-tab="compare">Compare</button></nav>
${live ? '<label class="live"><input type="checkbox" id="live" checked> live</label>' : ""}<span id="status"></span></header>
<main>
<section id="summary"></section>
<section id="samples" hidden>
 <div class="controls" id="filters"></div>
 <div class="split"><div id="list"></div><div id="detail"><p class="muted">Choose an attempt to see its transcript.</p></div></div>
</section>
<section id="compare" hidden></section>
</main>
`;
}

/** Text as HTML text. */
export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

export const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d232b;background:#f6f7f9}
header{display:flex;gap:16px;align-items:center;padding:8px 16px;background:#1d232b;color:#fff;flex-wrap:wrap}
header h1{font-size:16px;margin:0}
nav button{background:none;border:0;color:#c9d1d9;padding:6px 10px;cursor:pointer;font:inherit;border-radius:4px}
nav button.on{background:#3b4552;color:#fff}
.live{font-size:12px;color:#c9d1d9}#status{font-size:12px;color:#9aa4ae}
main{padding:12px 16px;max-width:100%}
section{max-width:100%}
h2{font-size:15px;margin:16px 0 6px}h3{font-size:14px;margin:12px 0 4px}
table{border-collapse:collapse;width:100%;table-layout:fixed;background:#fff;margin:4px 0 12px}
th,td{border-bottom:1px solid #e3e6ea;padding:4px 6px;text-align:left;vertical-align:top;overflow-wrap:anywhere;word-break:break-word}
th{background:#eef1f4;font-weight:600;font-size:12px}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.muted{color:#6b7480}
.controls{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin-bottom:8px}
.controls input,.controls select{font:inherit;padding:3px 6px;max-width:220px}
.split{display:grid;grid-template-columns:minmax(0,5fr) minmax(0,7fr);gap:12px}
#list table tr{cursor:pointer}#list tr.sel td{background:#dbe9ff}
.v-solved{color:#0a7a32;font-weight:600}.v-unsolved{color:#a0331c}.v-error{color:#8a1f9c;font-weight:600}.v-unjudged{color:#7a6a00}
.turn{background:#fff;border:1px solid #e3e6ea;border-radius:6px;padding:8px;margin:6px 0}
.turn .meta{font-size:12px;color:#6b7480}
pre{white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word;background:#f0f2f5;padding:6px;margin:4px 0;max-height:420px;overflow-y:auto;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
.call{border-left:3px solid #4a7bd0;padding-left:8px;margin:6px 0}.call.fail{border-color:#c0492b}
.plots{display:flex;flex-wrap:wrap;gap:16px}.plot{background:#fff;border:1px solid #e3e6ea;padding:8px}
svg text{font:11px system-ui,sans-serif;fill:#1d232b}
button.more{margin:6px 0}
#detail{min-width:0}
.fam-good{color:#0a7a32}.fam-bad{color:#a0331c}.cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(0,1fr));gap:8px}.cols>div{min-width:0}
td.id{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;overflow-wrap:normal;word-break:normal}
.w-run{width:13%}.w-sample{width:30%}.w-scen{width:11%}.w-verdict{width:15%}
.cell-solved{background:#d7f2df}.cell-unsolved{background:#f8ded8}.cell-error{background:#efd8f4}.cell-unjudged{background:#f6f0c8}.cell-none{background:#fff}
`;

export const SCRIPT = String.raw`
"use strict";
const token = new URLSearchParams(location.search).get("token") || "";
let index = { runs: [], rows: [] };
let shown = 300;
let selected = null;
const $ = (id) => document.getElementById(id);
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined && k !== false) e.append(k instanceof Node ? k : String(k));
  return e;
}
const NS = "http://www.w3.org/2000/svg";
function svg(tag, attrs, ...kids) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  for (const k of kids.flat()) if (k !== null && k !== undefined) e.append(k instanceof Node ? k : String(k));
  return e;
}
async function api(path) {
  const r = await fetch(path, { headers: { Authorization: "Bearer " + token } });
  if (!r.ok) throw new Error((await r.text()).slice(0, 300));
  return r.json();
}
/* The static page carries its data: the index and the attempts in chunks, each gzip'd JSON in base64, decoded when needed. */
const STATIC = document.getElementById("gg-index") !== null;
async function unpack(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error("the page holds no " + id);
  const bin = atob(node.textContent.trim());
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const text = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
  return JSON.parse(text);
}
const chunks = new Map();
async function getIndex() { return STATIC ? unpack("gg-index") : api("/api/index"); }
async function getAttempt(run, key) {
  if (!STATIC) return api("/api/attempt?run=" + run + "&key=" + encodeURIComponent(key));
  const row = index.rows.find((r) => r.run === run && r.key === key);
  if (!row || row.chunk === undefined) throw new Error("no attempt " + key);
  let chunk = chunks.get(row.chunk);
  if (!chunk) {
    chunk = await unpack("gg-chunk-" + row.chunk);
    if (chunks.size >= 4) chunks.delete(chunks.keys().next().value);
    chunks.set(row.chunk, chunk);
  }
  const a = chunk.find((x) => x.run === run && x.record.key === key);
  if (!a) throw new Error("no attempt " + key);
  if (a.system_id !== undefined && a.system_id !== null) a.system = index.systems[a.system_id];
  return a;
}
const pct = (v) => (v === null || v === undefined ? "–" : v.toFixed(2) + "%");
const money = (v) => (v === null || v === undefined ? "–" : "$" + v.toFixed(v < 1 ? 4 : 2));
const secs = (ms) => (ms / 1000).toFixed(1) + " s";
const verdictSpan = (v) => el("span", { class: "v-" + v }, v);
/* A sample id on one line, cut with an ellipsis where the column ends; the whole id in its title. */
const idCell = (text) => el("td", { class: "id", title: text }, text);
function table(head, rows, numeric) {
  const num = new Set(numeric || []);
  return el("table", {}, el("thead", {}, el("tr", {}, head.map((h, i) => el("th", { class: num.has(i) ? "num" : null }, h)))),
    el("tbody", {}, rows.map((r) => el("tr", {}, r.map((c, i) => el("td", { class: num.has(i) ? "num" : null }, c))))));
}

/* ---------- summary ---------- */
function renderSummary() {
  const s = $("summary");
  s.replaceChildren();
  for (const run of index.runs) {
    const sum = run.summary;
    s.append(el("h2", {}, run.label + " — " + run.agent + (run.model ? " (" + run.model + ")" : "") + ", " + run.attempts + " attempt(s)"));
    s.append(table(["agent", "scenario", "samples", "completed %", "solved %", "solved", "unjudged", "infra errors", "agent errors", "ceiling"],
      sum.totals.filter((t) => t.samples > 0).map((t) => [t.agent, t.scenario, t.samples, pct(t.success_rate), pct(t.solve_rate), t.solved, t.unjudged, t.infrastructure_errors, t.agent_errors, pct(t.ceiling)]), [2, 3, 4, 5, 6, 7, 8, 9]));
    if (sum.by_difficulty.length) s.append(el("h3", {}, "By difficulty"), table(["agent", "scenario", "difficulty", "samples", "solve"], sum.by_difficulty.map((t) => [t.agent, t.scenario, t.difficulty, t.samples, pct(t.solve_rate)]), [3, 4]));
    if (sum.by_language.length) s.append(el("h3", {}, "By language"), table(["agent", "language", "scenario", "samples", "solve"], sum.by_language.map((t) => [t.agent, t.language, t.scenario, t.samples, pct(t.solve_rate)]), [3, 4]));
    if (sum.repeats.length) s.append(el("h3", {}, "Repeats"), table(["agent", "scenario", "difficulty", "attempts", "mean solve", "std. error", "pass@k"], sum.repeats.map((t) => [t.agent, t.scenario, t.difficulty, t.attempts, pct(t.mean_solve_rate), t.standard_error === null ? "–" : t.standard_error.toFixed(2), t.pass_at_k ? Object.entries(t.pass_at_k).map(([k, v]) => "@" + k + " " + (+v).toFixed(1) + "%").join(", ") : "–"]), [3, 4, 5]));
    if (sum.failures && sum.failures.length) s.append(el("h3", {}, "System errors by cause"), table(["code", "attempts", "which", "cause"], sum.failures.map((f) => [f.code, f.keys.length, f.keys.slice(0, 5).join(", ") + (f.keys.length > 5 ? " and " + (f.keys.length - 5) + " more" : ""), f.message]), [1]));
    const repos = new Map();
    for (const r of index.rows.filter((x) => x.run === index.runs.indexOf(run))) {
      const g = repos.get(r.repository) || { n: 0, solved: 0 };
      g.n++; if (r.verdict === "solved") g.solved++;
      repos.set(r.repository, g);
    }
    if (repos.size > 1) s.append(el("h3", {}, "By repository"), table(["repository", "attempts", "solved"], [...repos].map(([k, g]) => [k, g.n, g.solved + " (" + ((100 * g.solved) / g.n).toFixed(1) + "%)"]), [1, 2]));
    s.append(el("p", { class: "muted usage" }, run.usage));
    if (run.unisolated) s.append(el("p", { class: "v-error" }, run.unisolated));
    for (const sec of run.sections || []) {
      const parsed = new DOMParser().parseFromString(sec.html, "text/html");
      s.append(el("h3", {}, sec.title), el("p", { class: "muted" }, sec.intro), ...parsed.body.childNodes);
    }
  }
  s.append(el("h2", {}, "Plots"), el("div", { class: "plots" }, costPlot(), passAtKPlot(), difficultyPlot()));
}
const COLORS = ["#2f6fdb", "#d2603a", "#2a9d5c", "#8e44ad", "#c49a00", "#1f9bb0", "#b03060"];
function frame(title, w, h) {
  const g = svg("svg", { width: w, height: h, viewBox: "0 0 " + w + " " + h, role: "img", "aria-label": title });
  g.append(svg("text", { x: 8, y: 14, "font-weight": 600 }, title));
  return g;
}
function axes(g, x0, y0, x1, y1, xl, yl) {
  g.append(svg("line", { x1: x0, y1: y1, x2: x1, y2: y1, stroke: "#888" }), svg("line", { x1: x0, y1: y0, x2: x0, y2: y1, stroke: "#888" }));
  g.append(svg("text", { x: (x0 + x1) / 2, y: y1 + 28, "text-anchor": "middle" }, xl));
  g.append(svg("text", { x: 12, y: (y0 + y1) / 2, transform: "rotate(-90 12 " + (y0 + y1) / 2 + ")", "text-anchor": "middle" }, yl));
  for (const p of [0, 50, 100]) {
    const y = y1 - ((y1 - y0) * p) / 100;
    g.append(svg("text", { x: x0 - 4, y: y + 4, "text-anchor": "end" }, p + "%"), svg("line", { x1: x0, x2: x1, y1: y, y2: y, stroke: "#eee" }));
  }
}
function costPlot() {
  const g = frame("Solve rate against cost (per run)", 420, 260);
  const pts = index.runs.map((r, i) => {
    const t = r.summary.totals.find((x) => x.scenario === "total");
    const cost = r.summary.cost_usd;
    // A run with attempts of unknown usage has no token count to plot.
    const y = t && t.solve_rate !== null && (cost !== null || !r.summary.usage_unknown) ? t.solve_rate : null;
    return { i, label: r.label, x: cost ?? r.summary.tokens.prompt + r.summary.tokens.completion, usd: cost !== null, y };
  });
  const left = pts.filter((p) => p.y === null).map((p) => p.label);
  pts.splice(0, pts.length, ...pts.filter((p) => p.y !== null));
  const usd = pts.every((p) => p.usd);
  axes(g, 50, 24, 400, 220, usd ? "cost (US$)" : "tokens (no prices)", "solve rate");
  unjudgedNote(g, left);
  const xmax = Math.max(1e-9, ...pts.map((p) => p.x));
  for (const p of pts) {
    const cx = 50 + (350 * p.x) / xmax, cy = 220 - (196 * p.y) / 100;
    g.append(svg("circle", { cx, cy, r: 5, fill: COLORS[p.i % COLORS.length] }, svg("title", {}, p.label + ": " + p.y + "% at " + (usd ? money(p.x) : p.x + " tokens"))));
    g.append(svg("text", { x: Math.min(cx + 7, 330), y: cy - 6 }, p.label));
  }
  g.append(svg("text", { x: 400, y: 236, "text-anchor": "end" }, usd ? money(xmax) : String(xmax)));
  return el("div", { class: "plot" }, g);
}
/* Names what a plot leaves out because no judge ran on it (the summary gives it no solve rate either). */
function unjudgedNote(g, labels) {
  if (labels.length === 0) return;
  const text = "unjudged, not plotted: " + labels.join(", ");
  g.append(svg("text", { x: 56, y: 32, fill: "#7a6a00", class: "unjudged-note" }, text.length > 60 ? text.slice(0, 59) + "…" : text, svg("title", {}, text)));
}
function passAtKPlot() {
  const g = frame("pass@k (runs with repeats)", 420, 260);
  axes(g, 50, 24, 400, 220, "k", "pass@k");
  const curves = index.runs.map((r, i) => ({ i, label: r.label, row: r.summary.repeats.find((x) => x.scenario === "total" && x.difficulty === "all") })).filter((c) => c.row && c.row.pass_at_k);
  const kmax = Math.max(1, ...curves.map((c) => Object.keys(c.row.pass_at_k).length));
  if (curves.length === 0) g.append(svg("text", { x: 225, y: 120, "text-anchor": "middle", fill: "#888" }, "no run has repeats (--repeats)"));
  for (const c of curves) {
    const pts = Object.entries(c.row.pass_at_k).map(([k, v]) => [50 + (350 * (Number(k) - 1)) / Math.max(1, kmax - 1), 220 - (196 * v) / 100]);
    g.append(svg("polyline", { points: pts.map((p) => p.join(",")).join(" "), fill: "none", stroke: COLORS[c.i % COLORS.length], "stroke-width": 2 }));
    for (const p of pts) g.append(svg("circle", { cx: p[0], cy: p[1], r: 3, fill: COLORS[c.i % COLORS.length] }));
    const last = pts[pts.length - 1];
    g.append(svg("text", { x: Math.min(last[0] + 4, 360), y: last[1] - 4 }, c.label));
  }
  for (let k = 1; k <= kmax; k++) g.append(svg("text", { x: 50 + (350 * (k - 1)) / Math.max(1, kmax - 1), y: 234, "text-anchor": "middle" }, k));
  return el("div", { class: "plot" }, g);
}
function difficultyPlot() {
  const groups = [];
  const left = [];
  index.runs.forEach((r, i) => {
    for (const d of r.summary.by_difficulty) {
      if (d.solve_rate !== null) groups.push({ i, key: d.scenario + " " + d.difficulty, v: d.solve_rate, label: r.label });
      else if (d.unjudged > 0) left.push(r.label + " " + d.scenario + " " + d.difficulty);
    }
  });
  const keys = [...new Set(groups.map((x) => x.key))];
  const w = Math.max(420, 60 + keys.length * (14 * index.runs.length + 16));
  const g = frame("Solve rate per difficulty", Math.min(w, 900), 260);
  const x1 = Math.min(w, 900) - 20;
  axes(g, 50, 24, x1, 220, "scenario and difficulty", "solve rate");
  unjudgedNote(g, left);
  const slot = (x1 - 60) / Math.max(1, keys.length), bw = Math.max(3, (slot - 8) / Math.max(1, index.runs.length));
  keys.forEach((k, ki) => {
    for (const b of groups.filter((x) => x.key === k)) {
      const h = (196 * b.v) / 100;
      g.append(svg("rect", { x: 56 + ki * slot + b.i * bw, y: 220 - h, width: bw - 1, height: h, fill: COLORS[b.i % COLORS.length] }, svg("title", {}, b.label + " " + k + ": " + b.v + "%")));
    }
    g.append(svg("text", { x: 56 + ki * slot + slot / 2 - 4, y: 234, "text-anchor": "middle" }, k));
  });
  return el("div", { class: "plot" }, g);
}

/* ---------- samples ---------- */
const FILTERS = [["run", "run"], ["scenario", "scenario"], ["difficulty", "difficulty"], ["verdict", "verdict"], ["status", "status"], ["error", "error"], ["language", "language"], ["repository", "repository"], ["tampered", "tampered"]];
const state = { q: "", sort: "key", filters: {} };
function optionValues(field) {
  const vals = new Set(index.rows.map((r) => (field === "run" ? String(r.run) : String(r[field] ?? "none"))));
  return [...vals].sort();
}
function renderFilters() {
  const f = $("filters");
  f.replaceChildren(el("input", { id: "search", type: "search", placeholder: "search sample id…", value: state.q, oninput: (e) => { state.q = e.target.value; shown = 300; renderList(); } }));
  for (const [field, label] of FILTERS) {
    const sel = el("select", { id: "filter-" + field, "aria-label": label, onchange: (e) => { state.filters[field] = e.target.value; shown = 300; renderList(); } },
      el("option", { value: "" }, "any " + label),
      optionValues(field).map((v) => el("option", { value: v, selected: state.filters[field] === v }, field === "run" ? index.runs[Number(v)]?.label ?? v : v)));
    f.append(sel);
  }
  f.append(el("select", { id: "sort", "aria-label": "sort", onchange: (e) => { state.sort = e.target.value; renderList(); } },
    [["key", "sort: sample"], ["cost", "most cost"], ["turns", "most turns"], ["time", "longest"], ["tokens", "most tokens"]].map(([v, l]) => el("option", { value: v, selected: state.sort === v }, l))));
}
function filtered() {
  const q = state.q.trim().toLowerCase();
  let rows = index.rows.filter((r) => (!q || r.sample_id.toLowerCase().includes(q) || r.key.toLowerCase().includes(q)) &&
    FILTERS.every(([f]) => !state.filters[f] || (f === "run" ? String(r.run) : String(r[f] ?? "none")) === state.filters[f]));
  const by = { cost: (r) => r.cost_usd ?? -1, turns: (r) => r.turns, time: (r) => r.duration_ms, tokens: (r) => r.tokens ?? -1 }[state.sort];
  if (by) rows = [...rows].sort((a, b) => by(b) - by(a));
  return rows;
}
function renderList() {
  const rows = filtered();
  const multi = index.runs.length > 1;
  const t = el("table", { id: "rows" }, el("thead", {}, el("tr", {}, multi ? el("th", { class: "w-run" }, "run") : null, el("th", { class: "w-sample" }, "sample"), el("th", { class: "w-scen" }, "scenario"), el("th", { class: "w-verdict" }, "verdict"), el("th", { class: "num" }, "turns"), el("th", { class: "num" }, "cost"), el("th", { class: "num" }, "time"))));
  const body = el("tbody");
  for (const r of rows.slice(0, shown)) {
    const tr = el("tr", { "data-key": r.key, "data-run": r.run, class: selected && selected.run === r.run && selected.key === r.key ? "sel" : null, onclick: () => openAttempt(r.run, r.key) },
      multi ? el("td", {}, index.runs[r.run].label) : null, idCell(r.sample_id + (r.repeat ? " #" + r.repeat : "") + (r.agent.endsWith("+memory") ? " +memory" : "")), el("td", {}, r.scenario), el("td", {}, verdictSpan(r.verdict), r.error ? el("div", { class: "muted" }, r.error) : null),
      el("td", { class: "num" }, r.turns), el("td", { class: "num" }, money(r.cost_usd)), el("td", { class: "num" }, secs(r.duration_ms)));
    body.append(tr);
  }
  t.append(body);
  const list = $("list");
  list.replaceChildren(el("p", { class: "muted", id: "count" }, rows.length + " of " + index.rows.length + " attempt(s)"), t);
  if (rows.length > shown) list.append(el("button", { class: "more", onclick: () => { shown += 300; renderList(); } }, "show 300 more"));
}
async function openAttempt(run, key) {
  selected = { run, key };
  for (const tr of document.querySelectorAll("#rows tr[data-key]")) tr.classList.toggle("sel", tr.dataset.key === key && tr.dataset.run === String(run));
  const d = $("detail");
  d.replaceChildren(el("p", { class: "muted" }, "loading " + key + "…"));
  let a;
  try { a = await getAttempt(run, key); } catch (e) { d.replaceChildren(el("p", {}, "cannot load: " + e.message)); return; }
  if (!selected || selected.key !== key || selected.run !== run) return;
  const r = a.record;
  d.replaceChildren(el("h2", { id: "attempt-title" }, r.sample_id + " · " + r.scenario), el("p", {}, verdictSpan(r.verdict), " · ", r.agent, " · ", r.repository, " · ", r.difficulty, " · ", r.turns + " turn(s), " + r.tool_calls + " call(s), ", (r.usage_known === false ? "tokens unknown" : (r.tokens.prompt + r.tokens.completion) + " tokens") + ", ", money(r.cost_usd), ", ", secs(r.duration_ms)));
  if (r.error) d.append(el("p", { class: "v-error" }, r.error.code + ": " + r.error.message));
  if (a.problem) d.append(el("p", { class: "v-error" }, a.problem));
  if (a.href) d.append(el("p", {}, el("a", { href: a.href, class: "trajectory-link" }, "trajectory file")));
  d.append(el("h3", {}, "Outcome"), familyView(a.family || []), outcomeView(r, a.outcome, (a.family || []).length > 0));
  if (a.timings && a.timings.length) d.append(el("h3", {}, "Timings"), table(["phase", "time", "share"], a.timings.map((t) => [t.phase, secs(t.ms), r.duration_ms > 0 ? ((100 * t.ms) / r.duration_ms).toFixed(0) + "%" : "–"]), [1, 2]));
  d.append(el("h3", {}, "Transcript"));
  if (a.system) d.append(el("details", {}, el("summary", {}, "system prompt"), el("pre", {}, a.system)));
  if (a.task !== null) d.append(el("details", { open: true }, el("summary", {}, "task"), el("pre", {}, a.task)));
  a.turns.forEach((t, i) => {
    const meta = ["turn " + (i + 1)];
    if (t.usage) meta.push(t.usage.prompt_tokens + " prompt + " + t.usage.completion_tokens + " completion tokens" + (t.usage.cached ? " (cache hit)" : ""));
    if (t.latency_ms !== null) meta.push(secs(t.latency_ms));
    if (t.at_ms !== null) meta.push("at " + secs(t.at_ms));
    d.append(el("div", { class: "turn" }, el("div", { class: "meta" }, meta.join(" · ")), t.content !== null ? el("pre", {}, t.content) : null,
      t.calls.map((c) => el("div", { class: "call" + (c.result && !c.result.ok ? " fail" : "") }, el("b", {}, c.name), el("pre", {}, prettyArgs(c.arguments)), el("div", { class: "meta" }, c.result ? (c.result.ok ? "result" : "failed") : "no result recorded"), c.result ? el("pre", {}, c.result.output) : null)),
      t.notes.map((n) => el("pre", { class: "muted" }, n))));
  });
  const stray = a.notes.filter((n) => !a.turns.some((t) => t.notes.includes(n) || t.calls.some((c) => c.result && c.result.output === n)));
  if (stray.length) d.append(el("h3", {}, "Notes and agent output (stdout, stderr)"), stray.map((n) => el("pre", {}, n)));
}
function prettyArgs(text) { try { return JSON.stringify(JSON.parse(text), null, 1); } catch { return text; } }
function familyView(blocks) {
  const box = el("div", { class: "family" });
  for (const b of blocks) {
    if (b.kind === "heading") box.append(el("h3", {}, b.text));
    else if (b.kind === "text") box.append(el("p", { class: b.tone ? "fam-" + b.tone : null }, b.text));
    else if (b.kind === "code") box.append(el("details", { open: b.open ? true : null }, el("summary", {}, b.title), el("pre", {}, b.text)));
    else if (b.kind === "columns") box.append(el("div", { class: "cols" }, b.columns.map((c) => el("div", {}, el("b", {}, c.title), el("pre", {}, c.text)))));
    else if (b.kind === "table") {
      const t = table(b.head, b.rows);
      if (b.tones) b.tones.forEach((tones, ri) => (tones || []).forEach((tone, ci) => { if (tone) t.tBodies[0].rows[ri]?.cells[ci]?.classList.add("fam-" + tone); }));
      box.append(t);
    }
  }
  return box;
}
function outcomeView(r, o, hasFamily) {
  const box = el("div");
  const scores = r.scores || {};
  const rows = [];
  for (const [name, v] of Object.entries(scores)) {
    if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) if (typeof x !== "object" || x === null) rows.push([name + "." + k, String(x)]);
    } else rows.push([name, String(v)]);
  }
  if (rows.length) box.append(hasFamily ? el("details", {}, el("summary", {}, "scores"), table(["score", "value"], rows)) : table(["score", "value"], rows));
  const finalText = o.final && typeof o.final === "object" ? Object.entries(o.final).filter(([, x]) => typeof x === "string" && x.length > 0) : [];
  for (const [k, x] of finalText) box.append(el("details", {}, el("summary", {}, "final: " + k), el("pre", {}, x)));
  if (o.final && typeof o.final === "object" && finalText.length === 0) box.append(el("details", {}, el("summary", {}, "final state"), el("pre", {}, JSON.stringify(o.final, null, 1))));
  if (o.ground_truth_diff) box.append(el("details", {}, el("summary", {}, "against the recorded answer"), el("pre", {}, o.ground_truth_diff)));
  if (o.ended_by) box.append(el("p", { class: "muted" }, "ended by " + o.ended_by));
  return box;
}

/* ---------- compare ---------- */
const cmp = { a: "0", b: "1", only: false, differs: false, scenario: "" };
function renderCompare() {
  const s = $("compare");
  s.replaceChildren();
  if (index.runs.length < 2) { s.append(el("p", { class: "muted" }, "Give two or more run directories to compare them.")); return; }
  const scen = [...new Set(index.rows.map((r) => r.scenario))].sort();
  // The rates count only the sample × scenario pairs every run attempted (as 'gitgood report A B' does).
  const pair = (r) => r.sample_id + "\u0000" + r.scenario;
  const perRun = index.runs.map((_, i) => new Set(index.rows.filter((r) => r.run === i).map(pair)));
  const shared = new Set([...perRun[0]].filter((k) => perRun.every((set) => set.has(k))));
  const alone = perRun.map((set) => set.size - shared.size);
  // As the summary counts them: a run × scenario with unjudged attempts (no judge ran) has no solve rate and no delta.
  const rateTable = table(["scenario", ...index.runs.map((r) => r.label), "Δ last − first"], scen.map((sc) => {
    const rates = index.runs.map((_, i) => {
      const rs = index.rows.filter((r) => r.run === i && r.scenario === sc && shared.has(pair(r)));
      const unjudged = rs.filter((r) => r.verdict === "unjudged").length;
      return rs.length === 0 ? null : unjudged > 0 ? { unjudged } : { rate: (100 * rs.filter((r) => r.verdict === "solved").length) / rs.length };
    });
    const first = rates[0], last = rates[rates.length - 1];
    const d = first && last && first.rate !== undefined && last.rate !== undefined ? last.rate - first.rate : null;
    return [sc, ...rates.map((x) => (x === null ? "–" : x.unjudged ? "unjudged (" + x.unjudged + ")" : x.rate.toFixed(1) + "%")), d === null ? "–" : (d >= 0 ? "+" : "") + d.toFixed(1)];
  }));
  rateTable.id = "rates";
  s.append(el("h2", {}, "Solve rate per scenario, over the " + shared.size + " sample(s) every run attempted"));
  if (alone.some((n) => n > 0)) {
    s.append(el("p", { class: "warning", id: "cmp-overlap" }, "The runs attempted different samples: the rates leave out the ones not every run attempted (" + index.runs.map((r, i) => r.label + " " + alone[i]).join(", ") + ")."));
  }
  s.append(rateTable);
  const runOpts = (v) => index.runs.map((r, i) => el("option", { value: String(i), selected: v === String(i) }, r.label));
  s.append(el("div", { class: "controls" },
    el("label", {}, el("input", { type: "checkbox", id: "differs", checked: cmp.differs, onchange: (e) => { cmp.differs = e.target.checked; renderCompare(); } }), " only samples the runs disagree on "),
    el("label", {}, el("input", { type: "checkbox", id: "only", checked: cmp.only, onchange: (e) => { cmp.only = e.target.checked; renderCompare(); } }), " only solved in "),
    el("select", { id: "cmp-a", onchange: (e) => { cmp.a = e.target.value; renderCompare(); } }, runOpts(cmp.a)), " not in ",
    el("select", { id: "cmp-b", onchange: (e) => { cmp.b = e.target.value; renderCompare(); } }, runOpts(cmp.b)),
    el("select", { id: "cmp-scenario", onchange: (e) => { cmp.scenario = e.target.value; renderCompare(); } }, el("option", { value: "" }, "any scenario"), scen.map((x) => el("option", { value: x, selected: cmp.scenario === x }, x)))));
  const cells = new Map();
  for (const r of index.rows) {
    const id = r.sample_id + "\u0000" + r.scenario + "\u0000" + (r.agent.endsWith("+memory") ? "+memory" : "");
    if (!cells.has(id)) cells.set(id, { sample: r.sample_id, scenario: r.scenario, variant: r.agent.endsWith("+memory") ? " +memory" : "", runs: new Map() });
    const c = cells.get(id).runs;
    const v = c.get(r.run) || { n: 0, solved: 0, unjudged: 0, verdicts: new Set(), key: r.key };
    v.n++; if (r.verdict === "solved") v.solved++; if (r.verdict === "unjudged") v.unjudged++; v.verdicts.add(r.verdict);
    c.set(r.run, v);
  }
  let list = [...cells.values()].filter((c) => !cmp.scenario || c.scenario === cmp.scenario);
  // Repeats: solved of judged attempts, the unjudged ones named apart (never counted as unsolved).
  const outcome = (v) => (!v ? "none" : v.n === 1 ? [...v.verdicts][0] : v.unjudged === v.n ? "unjudged ×" + v.n : v.solved + "/" + (v.n - v.unjudged) + (v.unjudged ? " + " + v.unjudged + " unjudged" : ""));
  if (cmp.differs) list = list.filter((c) => index.runs.every((_, i) => c.runs.has(i)) && new Set(index.runs.map((_, i) => outcome(c.runs.get(i)))).size > 1);
  // "Not solved in B" asks for a verdict: an attempt of B that no judge looked at does not say it.
  if (cmp.only) list = list.filter((c) => { const b = c.runs.get(Number(cmp.b)); return (c.runs.get(Number(cmp.a))?.solved ?? 0) > 0 && (!b || (b.solved === 0 && b.unjudged === 0)); });
  const head = el("tr", {}, el("th", { class: "w-sample" }, "sample"), el("th", {}, "scenario"), index.runs.map((r) => el("th", {}, r.label)));
  const body = el("tbody", {}, list.slice(0, 1000).map((c) => el("tr", {}, idCell(c.sample + c.variant), el("td", {}, c.scenario), index.runs.map((_, i) => {
    const v = c.runs.get(i);
    if (!v) return el("td", { class: "cell-none muted" }, "—");
    const word = outcome(v);
    const cls = v.solved > 0 ? "solved" : v.verdicts.has("error") ? "error" : v.unjudged > 0 ? "unjudged" : "unsolved";
    return el("td", { class: "cell-" + cls, "data-verdict": cls }, el("a", { href: "#", onclick: (e) => { e.preventDefault(); showTab("samples"); openAttempt(i, v.key); } }, word));
  }))));
  s.append(el("p", { class: "muted", id: "cmp-count" }, list.length + " sample(s)" + (list.length > 1000 ? ", the first 1000 shown" : "")), el("table", { id: "matrix" }, el("thead", {}, head), body));
}

/* ---------- frame ---------- */
let compareStale = true;
function showTab(name) {
  for (const b of document.querySelectorAll("nav button")) b.classList.toggle("on", b.dataset.tab === name);
  for (const s of document.querySelectorAll("main > section")) s.hidden = s.id !== name;
  // The matrix is drawn when it is looked at, not with every index.
  if (name === "compare" && compareStale) { compareStale = false; renderCompare(); }
}
for (const b of document.querySelectorAll("nav button")) b.addEventListener("click", () => showTab(b.dataset.tab));
let lastText = "";
async function load() {
  try {
    const fresh = await getIndex();
    const text = JSON.stringify(fresh);
    if (text !== lastText) {
      lastText = text;
      index = fresh;
      renderSummary(); renderFilters(); renderList();
      compareStale = true;
      if (!$("compare").hidden) { compareStale = false; renderCompare(); }
    }
    $("status").textContent = index.rows.length + " attempt(s) in " + index.runs.length + " run(s)" + (STATIC ? "" : ", read " + new Date().toLocaleTimeString());
  } catch (e) {
    $("status").textContent = "cannot read the runs: " + e.message;
  }
}
load();
if (!STATIC) setInterval(() => { if ($("live") && $("live").checked && !document.hidden) load(); }, 3000);
`;
