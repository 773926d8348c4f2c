/**
 * The viewer's page, shared by `gitgood view` (its server hands the data over) and `gitgood report --html`
 * (the page carries it): one document with its style and script inline, no network fonts, no CDN. The
 * script loads the index once (again every few seconds while "live" is on, served only) and each
 * attempt only when it is opened. Every text from a run is put in the page as text, never as HTML; the
 * families' report tables, written with the report's escaping kit, are the one exception.
 */

import { ATTEMPT_SCRIPT } from "./html-client-attempt.js";
import { CODE_SCRIPT } from "./html-client-code.js";
import { LINKS_SCRIPT } from "./html-client-links.js";
import { PLOTS_SCRIPT } from "./html-client-plots.js";

/** The page's body: the header with its tabs, and the three views the script fills. */
export function pageBody(title: string, live: boolean): string {
  return `<header><h1>${escapeHtml(title)}</h1>
<nav><button data-tab="summary" class="on">Summary</button><button data-tab="samples">Samples</button><button data-tab="compare">Compare</button><button data-tab="side">Side by side</button></nav>
${live ? '<label class="live"><input type="checkbox" id="live" checked> live</label>' : ""}<span id="status"></span></header>
<main>
<section id="summary"></section>
<section id="samples" hidden>
 <div class="controls" id="filters"></div>
 <div class="split"><div id="list"></div><div id="detail"><p class="muted">Choose an attempt to see its transcript.</p></div></div>
</section>
<section id="compare" hidden></section>
<section id="side" hidden></section>
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
td.id{white-space:nowrap;overflow:hidden;overflow-wrap:normal;word-break:normal}
.idwrap{display:flex;min-width:0}.idwrap>span{white-space:nowrap}.id-pre{display:none}.idwrap.cut::before{content:"…";color:#6b7480;flex-shrink:0}
.id-head{overflow:hidden;text-overflow:ellipsis;min-width:0;flex-shrink:1}.id-tail{flex-shrink:0}
td.num,th.num{white-space:nowrap;overflow-wrap:normal;word-break:normal}
#rows th,.cut{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;overflow-wrap:normal;word-break:normal}
pre.diff .d-add{color:#0a6b2c;background:#e3f6e8;display:inline-block;min-width:100%}pre.diff .d-del{color:#a0231c;background:#fbe6e3;display:inline-block;min-width:100%}
pre.diff .d-hunk{color:#6a4bb0}pre.diff .d-file{font-weight:700;color:#1d232b}
.args .path{font:600 13px ui-monospace,SFMono-Regular,Menlo,monospace;margin:4px 0;padding:2px 6px;background:#e8eef8;border-radius:3px;overflow-wrap:anywhere}
.args .arg-name{font-size:12px;color:#6b7480;margin-top:4px}
.legend{display:flex;flex-wrap:wrap;gap:10px;font-size:12px;margin:4px 0}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}
.legend i.c0{background:#2f6fdb}.legend i.c1{background:#d2603a}.legend i.c2{background:#2a9d5c}.legend i.c3{background:#8e44ad}.legend i.c4{background:#c49a00}.legend i.c5{background:#1f9bb0}.legend i.c6{background:#b03060}
.plot details.data summary{font-size:12px;cursor:pointer;color:#2f6fdb}.plot-note{font-size:12px;max-width:420px;margin:2px 0}
svg text.zero{font-size:10px;fill:#6b7480}svg text.muted{fill:#6b7480}
.view-picks{margin:12px 0 4px;display:flex;gap:4px}.view-pick{font:inherit;border:1px solid #c9d1d9;background:#fff;border-radius:4px;padding:2px 10px;cursor:pointer}.view-pick.on{background:#1d232b;color:#fff}
ol.timeline{list-style:none;padding:0;margin:4px 0}
.ev{display:grid;grid-template-columns:72px 64px minmax(0,1fr);gap:6px;padding:4px 6px;border-left:3px solid #c9d1d9;background:#fff;margin:2px 0}
.ev-at{font:12px ui-monospace,monospace;color:#6b7480;text-align:right}.ev-kind{font-size:11px;text-transform:uppercase;color:#6b7480;padding-top:1px}
.ev-model{border-color:#2f6fdb}.ev-tool{border-color:#8e44ad}.ev-result{border-color:#2a9d5c}.ev-judge,.ev-score{border-color:#c49a00}
.ev-error{border-color:#c0392b;background:#fdecea}.ev-error .ev-kind{color:#c0392b;font-weight:700}
.side-cols{display:grid;gap:10px}.side-col{min-width:0;background:#fff;border:1px solid #e3e6ea;padding:6px}
a.side-link{text-decoration:none}
.w-run{width:13%}.w-sample{width:30%}.w-scen{width:11%}.w-verdict{width:15%}
.cell-solved{background:#d7f2df}.cell-unsolved{background:#f8ded8}.cell-error{background:#efd8f4}.cell-unjudged{background:#f6f0c8}.cell-none{background:#fff}
`;

const CORE_SCRIPT = String.raw`
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
/*
 * A sample id on one line, the whole id in its title. The part every id of the runs shares at their start
 * is hidden behind a "…" (ten rows of one repository then differ where they show), and a long rest is cut
 * in its middle, so its end (a number, usually) stays in view; the cell's text is still the whole id.
 */
let idPrefix = 0;
function sharedPrefix(ids) {
  if (ids.length < 2) return 0;
  let n = ids.reduce((m, id) => { let i = 0; while (i < m && i < id.length && id[i] === ids[0][i]) i++; return i; }, ids[0].length);
  while (n > 0 && !/[_/\-.:]/.test(ids[0][n - 1])) n--;
  return n >= 6 ? n : 0;
}
function idCell(text) {
  const cut = text.length - idPrefix > 4 ? idPrefix : 0;
  const rest = text.slice(cut), tail = rest.length > 14 ? rest.slice(-10) : "";
  return el("td", { class: "id", title: text }, el("div", { class: "idwrap" + (cut ? " cut" : "") }, cut ? el("span", { class: "id-pre" }, text.slice(0, cut)) : null, el("span", { class: "id-head" }, tail ? rest.slice(0, -10) : rest), tail ? el("span", { class: "id-tail" }, tail) : null));
}
function table(head, rows, numeric) {
  const num = new Set(numeric || []);
  return el("table", {}, el("thead", {}, el("tr", {}, head.map((h, i) => el("th", { class: num.has(i) ? "num" : null }, h)))),
    el("tbody", {}, rows.map((r) => el("tr", {}, r.map((c, i) => el("td", { class: num.has(i) ? "num" : null }, c))))));
}

/* ---------- summary ---------- */
function renderSummary() {
  const s = $("summary");
  s.replaceChildren();
  index.runs.forEach((run, i) => {
    const sum = run.summary;
    s.append(el("h2", {}, run.label + " — " + run.agent + (run.model ? " (" + run.model + ")" : "") + ", " + run.attempts + " attempt(s)"));
    // A run that wrote its plan shows how far it is from its first second, before any attempt has finished.
    const p = run.progress;
    if (p) s.append(el("p", { class: "progress", "data-run": String(i) }, el("progress", { max: String(Math.max(1, p.planned)), value: String(p.done) }),
      " " + progressText(p)));
    // Each running attempt opens as far as it has gone (served only: a static page has no live files).
    if (p && p.running_keys && p.running_keys.length && !STATIC) s.append(el("p", { class: "running", "data-run": String(i) }, "running: ",
      p.running_keys.flatMap((k, j) => [j ? ", " : "", el("a", { href: hashFor({ tab: "samples", selected: { run: i, key: k } }) }, k)])));
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
    const skills = skillsNodes(run);
    if (skills.length) s.append(el("div", { class: "skills", "data-run": index.runs.indexOf(run) }, ...skills));
  });
  s.append(el("h2", {}, "Plots"), ...plots());
}
/* A run's progress in words: finished, running, waiting, of the attempts planned. */
function progressText(p) {
  return p.done + " done, " + p.running + " running, " + Math.max(0, p.planned - p.done - p.running) + " waiting, of " + p.planned + " planned";
}
/* A run's skill profile (each rate over the attempts that exercised the skill) and its failure labels' counts. */
function skillsNodes(run) {
  const out = [];
  if (run.skills && run.skills.length) out.push(el("h3", {}, "Skills"), el("p", { class: "muted" }, "Per agent, across families: attempts that held each Git skill of the attempts that exercised it."),
    table(["agent", "skill", "held / attempts", "rate"], run.skills.map((k) => [k.agent, k.skill, k.held + " / " + k.attempts, k.rate === null ? "–" : (100 * k.rate).toFixed(1) + "%"]), [2, 3]));
  if (run.labels && run.labels.length) out.push(el("h3", {}, "Failure labels"), el("p", { class: "muted" }, "Failed attempts carrying each label (an attempt can carry several), of the run's " + run.attempts + " attempt(s)."),
    table(["agent", "label", "failed attempts"], run.labels.map((l) => [l.agent, l.label, l.attempts]), [2]));
  return out;
}
/* ---------- samples ---------- */
const FILTERS = [["run", "run"], ["scenario", "scenario"], ["difficulty", "difficulty"], ["verdict", "verdict"], ["status", "status"], ["error", "error"], ["label", "failure label"], ["language", "language"], ["repository", "repository"], ["tampered", "tampered"]];
const state = { q: "", sort: "key", filters: {} };
/* The values a row has for a filter: one, or for the failure labels each of its labels ("none" when it has none). */
function rowValues(r, field) {
  if (field === "run") return [String(r.run)];
  if (field === "label") return r.labels && r.labels.length ? r.labels : ["none"];
  return [String(r[field] ?? "none")];
}
function optionValues(field) {
  return [...new Set(index.rows.flatMap((r) => rowValues(r, field)))].sort();
}
function renderFilters() {
  const f = $("filters");
  f.replaceChildren(el("input", { id: "search", type: "search", placeholder: "search sample id…", value: state.q, oninput: (e) => { state.q = e.target.value; shown = 300; writeHash(false); renderList(); } }));
  for (const [field, label] of FILTERS) {
    const sel = el("select", { id: "filter-" + field, "aria-label": label, onchange: (e) => { state.filters[field] = e.target.value; shown = 300; writeHash(false); renderList(); } },
      el("option", { value: "" }, "any " + label),
      optionValues(field).map((v) => el("option", { value: v, selected: state.filters[field] === v }, field === "run" ? index.runs[Number(v)]?.label ?? v : v)));
    f.append(sel);
  }
  f.append(el("select", { id: "sort", "aria-label": "sort", onchange: (e) => { state.sort = e.target.value; writeHash(false); renderList(); } },
    [["key", "sort: sample"], ["cost", "most cost"], ["turns", "most turns"], ["time", "longest"], ["tokens", "most tokens"]].map(([v, l]) => el("option", { value: v, selected: state.sort === v }, l))));
}
function filtered() {
  const q = state.q.trim().toLowerCase();
  let rows = index.rows.filter((r) => (!q || r.sample_id.toLowerCase().includes(q) || r.key.toLowerCase().includes(q)) &&
    FILTERS.every(([f]) => !state.filters[f] || rowValues(r, f).includes(state.filters[f])));
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
      multi ? el("td", { class: "cut", title: index.runs[r.run].label }, index.runs[r.run].label) : null, idCell(r.sample_id + (r.repeat ? " #" + r.repeat : "") + (r.agent.endsWith("+memory") ? " +memory" : "")), el("td", { class: "cut" }, r.scenario), el("td", {}, verdictSpan(r.verdict), r.error ? el("div", { class: "muted cut", title: r.error }, r.error) : null),
      el("td", { class: "num" }, r.turns), el("td", { class: "num" }, money(r.cost_usd)), el("td", { class: "num" }, secs(r.duration_ms)));
    body.append(tr);
  }
  t.append(body);
  const list = $("list");
  list.replaceChildren(el("p", { class: "muted", id: "count" }, rows.length + " of " + index.rows.length + " attempt(s)"), t);
  if (rows.length > shown) list.append(el("button", { class: "more", onclick: () => { shown += 300; renderList(); } }, "show 300 more"));
}
async function openAttempt(run, key, push = true) {
  selected = { run, key };
  if (push) writeHash(true);
  for (const tr of document.querySelectorAll("#rows tr[data-key]")) tr.classList.toggle("sel", tr.dataset.key === key && tr.dataset.run === String(run));
  const d = $("detail");
  d.replaceChildren(el("p", { class: "muted" }, "loading " + key + "…"));
  liveShown = false;
  if (runningKey(run, key) && await showLive(run, key)) return;
  let a;
  try { a = await getAttempt(run, key); } catch (e) {
    // Started but with no event written yet: shown as starting, and read again with the index.
    if (runningKey(run, key)) { liveShown = true; d.replaceChildren(el("p", { class: "live-note" }, "running: starting…")); return; }
    d.replaceChildren(el("p", {}, "cannot load: " + e.message));
    return;
  }
  if (!selected || selected.key !== key || selected.run !== run) return;
  d.replaceChildren(...attemptNodes(a, detailView, run));
}
/* A running attempt: its transcript so far, read again with the index while "live" is on, until it has finished. */
let liveShown = false;
const runningKey = (run, key) => !STATIC && !!index.runs[run]?.progress?.running_keys?.includes(key);
async function showLive(run, key) {
  let a;
  try { a = await api("/api/live?run=" + run + "&key=" + encodeURIComponent(key)); } catch { return false; }
  if (!selected || selected.key !== key || selected.run !== run) return true;
  liveShown = true;
  $("detail").replaceChildren(el("h2", {}, a.sample_id + " · " + a.scenario), el("p", { class: "live-note" }, "running: its turns so far (" + a.turns.length + ")"),
    el("h3", {}, "Transcript"), ...transcriptNodes(a));
  return true;
}
function familyView(blocks) {
  const box = el("div", { class: "family" });
  for (const b of blocks) {
    if (b.kind === "heading") box.append(el("h3", {}, b.text));
    else if (b.kind === "text") box.append(el("p", { class: b.tone ? "fam-" + b.tone : null }, b.text));
    else if (b.kind === "code") box.append(el("details", { open: b.open ? true : null }, el("summary", {}, b.title), codeBlock(b.text)));
    else if (b.kind === "columns") box.append(el("div", { class: "cols" }, b.columns.map((c) => el("div", {}, el("b", {}, c.title), codeBlock(c.text)))));
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
  for (const [k, x] of finalText) box.append(el("details", {}, el("summary", {}, "final: " + k), codeBlock(x)));
  if (o.final && typeof o.final === "object" && finalText.length === 0) box.append(el("details", {}, el("summary", {}, "final state"), el("pre", {}, JSON.stringify(o.final, null, 1))));
  if (o.ground_truth_diff) box.append(el("details", {}, el("summary", {}, "against the recorded answer"), codeBlock(o.ground_truth_diff)));
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
  // Spend and effort on the same shared pairs: a mean per attempt with the attempts it is counted over
  // (cost over the priced ones, tokens over those whose usage is known), errors of all attempts.
  const mean = (vals, show) => { const k = vals.filter((v) => v !== null && v !== undefined); return k.length === 0 ? "–" : show(k.reduce((a, v) => a + v, 0) / k.length) + " (n=" + k.length + ")"; };
  const measures = [
    ["cost/attempt", (rs) => mean(rs.map((r) => r.cost_usd), (v) => "$" + v.toFixed(4))],
    ["tokens/attempt", (rs) => mean(rs.map((r) => r.tokens), (v) => String(Math.round(v)))],
    ["turns/attempt", (rs) => mean(rs.map((r) => r.turns), (v) => v.toFixed(1))],
    ["time/attempt", (rs) => mean(rs.map((r) => r.duration_ms), (v) => (v / 1000).toFixed(1) + "s")],
    ["errors", (rs) => rs.filter((r) => r.status === "error").length + "/" + rs.length],
  ];
  const effortTable = table(["scenario", "measure", ...index.runs.map((r) => r.label)], ["total", ...scen].flatMap((sc) => measures.map(([name, f]) => [sc, name, ...index.runs.map((_, i) => {
    const rs = index.rows.filter((r) => r.run === i && (sc === "total" || r.scenario === sc) && shared.has(pair(r)));
    return rs.length === 0 ? "–" : f(rs);
  })])));
  effortTable.id = "effort";
  s.append(el("h2", {}, "Spend and effort per attempt, on the same " + shared.size + " sample(s)"), effortTable);
  const runOpts = (v) => index.runs.map((r, i) => el("option", { value: String(i), selected: v === String(i) }, r.label));
  s.append(el("div", { class: "controls" },
    el("label", {}, el("input", { type: "checkbox", id: "differs", checked: cmp.differs, onchange: (e) => { cmp.differs = e.target.checked; writeHash(false); renderCompare(); } }), " only samples the runs disagree on "),
    el("label", {}, el("input", { type: "checkbox", id: "only", checked: cmp.only, onchange: (e) => { cmp.only = e.target.checked; writeHash(false); renderCompare(); } }), " only solved in "),
    el("select", { id: "cmp-a", onchange: (e) => { cmp.a = e.target.value; writeHash(false); renderCompare(); } }, runOpts(cmp.a)), " not in ",
    el("select", { id: "cmp-b", onchange: (e) => { cmp.b = e.target.value; writeHash(false); renderCompare(); } }, runOpts(cmp.b)),
    el("select", { id: "cmp-scenario", onchange: (e) => { cmp.scenario = e.target.value; writeHash(false); renderCompare(); } }, el("option", { value: "" }, "any scenario"), scen.map((x) => el("option", { value: x, selected: cmp.scenario === x }, x)))));
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
  // A sample's id leads to it side by side in the runs that have it (the first four).
  const sideLink = (c) => el("a", { class: "side-link", href: hashFor({ tab: "side", side: { sample: c.sample, scenario: c.scenario, runs: [...c.runs.keys()].sort((x, y) => x - y).slice(0, 4) } }), title: "side by side" }, "⇆");
  const body = el("tbody", {}, list.slice(0, 1000).map((c) => el("tr", {}, idCell(c.sample + c.variant), el("td", {}, c.runs.size > 1 ? [sideLink(c), " "] : null, c.scenario), index.runs.map((_, i) => {
    const v = c.runs.get(i);
    if (!v) return el("td", { class: "cell-none muted" }, "—");
    const word = outcome(v);
    const cls = v.solved > 0 ? "solved" : v.verdicts.has("error") ? "error" : v.unjudged > 0 ? "unjudged" : "unsolved";
    return el("td", { class: "cell-" + cls, "data-verdict": cls }, el("a", { href: hashFor({ tab: "samples", selected: { run: i, key: v.key } }) }, word));
  }))));
  s.append(el("p", { class: "muted", id: "cmp-count" }, list.length + " sample(s)" + (list.length > 1000 ? ", the first 1000 shown" : "")), el("table", { id: "matrix" }, el("thead", {}, head), body));
}
`;

/** The page's frame: its tabs, and the index loaded (and again every few seconds while "live" is on). */
const FRAME_SCRIPT = String.raw`
/* ---------- frame ---------- */
let compareStale = true;
function showTab(name, write = true) {
  currentTab = name;
  if (write) writeHash(true);
  for (const b of document.querySelectorAll("nav button")) b.classList.toggle("on", b.dataset.tab === name);
  for (const s of document.querySelectorAll("main > section")) s.hidden = s.id !== name;
  // The matrix is drawn when it is looked at, not with every index.
  if (name === "compare" && compareStale) { compareStale = false; renderCompare(); }
  if (name === "side") renderSide();
}
for (const b of document.querySelectorAll("nav button")) b.addEventListener("click", () => showTab(b.dataset.tab));
let lastText = "";
async function load() {
  try {
    const fresh = await getIndex();
    const text = JSON.stringify(fresh);
    if (text !== lastText) {
      const first = lastText === "";
      lastText = text;
      index = fresh;
      idPrefix = sharedPrefix([...new Set(index.rows.map((r) => r.sample_id))]);
      renderSummary();
      compareStale = true;
      // The first index draws the view the address names; a later one redraws the lists in place.
      if (first) restoreView();
      else {
        renderFilters(); renderList();
        if (!$("compare").hidden) { compareStale = false; renderCompare(); }
      }
    }
    if (liveShown && selected && !(runningKey(selected.run, selected.key) && await showLive(selected.run, selected.key))) openAttempt(selected.run, selected.key, false);
    const live = index.runs.filter((r) => r.progress && r.progress.done < r.progress.planned);
    $("status").textContent = index.rows.length + " attempt(s) in " + index.runs.length + " run(s)" + (live.length ? " (" + live.map((r) => r.label + ": " + progressText(r.progress)).join("; ") + ")" : "") + (STATIC ? "" : ", read " + new Date().toLocaleTimeString());
  } catch (e) {
    $("status").textContent = "cannot read the runs: " + e.message;
  }
}
load();
if (!STATIC) setInterval(() => { if ($("live") && $("live").checked && !document.hidden) load(); }, 3000);
`;

/** The page's script: its parts in the order they must run (the address is read once the state it sets exists). */
export const SCRIPT = CORE_SCRIPT + PLOTS_SCRIPT + CODE_SCRIPT + ATTEMPT_SCRIPT + LINKS_SCRIPT + FRAME_SCRIPT;
