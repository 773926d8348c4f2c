/**
 * The viewer's plots, part of the page's script (src/report/html-client.ts): solve rate against cost, pass@k,
 * solve rate per difficulty. Each says in its axis what it plots (US$ only when every plotted run has
 * prices, else tokens for all of them, never both on one axis), names its runs in a legend, draws a 0 %
 * bar as a visible line with its value, and has its numbers as a table one click away. A panel with
 * nothing to plot is left out, named in one line under the plots.
 */
export const PLOTS_SCRIPT = String.raw`
const COLORS = ["#2f6fdb", "#d2603a", "#2a9d5c", "#8e44ad", "#c49a00", "#1f9bb0", "#b03060"];
const colorOf = (i) => COLORS[i % COLORS.length];
function frame(title, w, h) {
  const g = svg("svg", { width: w, height: h, viewBox: "0 0 " + w + " " + h, role: "img", "aria-label": title });
  g.append(svg("text", { x: 8, y: 14, "font-weight": 600 }, title));
  return g;
}
function axes(g, x0, y0, x1, y1, xl, yl) {
  g.append(svg("line", { x1: x0, y1: y1, x2: x1, y2: y1, stroke: "#888" }), svg("line", { x1: x0, y1: y0, x2: x0, y2: y1, stroke: "#888" }));
  g.append(svg("text", { x: (x0 + x1) / 2, y: y1 + 30, "text-anchor": "middle", class: "x-label" }, xl));
  g.append(svg("text", { x: 12, y: (y0 + y1) / 2, transform: "rotate(-90 12 " + (y0 + y1) / 2 + ")", "text-anchor": "middle", class: "y-label" }, yl));
  for (const p of [0, 50, 100]) {
    const y = y1 - ((y1 - y0) * p) / 100;
    g.append(svg("text", { x: x0 - 4, y: y + 4, "text-anchor": "end" }, p + "%"), svg("line", { x1: x0, x2: x1, y1: y, y2: y, stroke: "#eee" }));
  }
}
/* The runs a plot draws, each with its colour: the legend. */
function legend(runs) {
  return el("div", { class: "legend" }, runs.map((r) => el("span", { class: "key" }, el("i", { class: "c" + (r.i % COLORS.length) }), r.label)));
}
/* A plot in its panel: the drawing, its legend, its numbers as a table behind one click. */
function plotPanel(name, g, runs, head, rows, numeric) {
  const data = table(head, rows, numeric);
  data.classList.add("plot-data");
  return el("div", { class: "plot", "data-plot": name }, g, runs.length ? legend(runs) : null, el("details", { class: "data" }, el("summary", {}, "data"), data));
}
/* Names what a plot leaves out because no judge ran on it (the summary gives it no solve rate either). */
function unjudgedNote(g, labels) {
  if (labels.length === 0) return;
  const text = "unjudged, not plotted: " + labels.join(", ");
  g.append(svg("text", { x: 56, y: 32, fill: "#7a6a00", class: "unjudged-note" }, text.length > 60 ? text.slice(0, 59) + "…" : text, svg("title", {}, text)));
}
/* The cost axis: US$ when every plotted run is priced, else tokens (prompt + completion) when every one's usage is known. */
function costPlot() {
  const judged = index.runs.map((r, i) => {
    const t = r.summary.totals.find((x) => x.scenario === "total");
    return { i, label: r.label, y: t ? t.solve_rate : null, usd: r.summary.cost_usd, tokens: r.summary.usage_unknown ? null : r.summary.tokens.prompt + r.summary.tokens.completion };
  });
  const left = judged.filter((p) => p.y === null).map((p) => p.label);
  const pts = judged.filter((p) => p.y !== null);
  const priced = pts.every((p) => p.usd !== null);
  const unit = priced ? "usd" : "tokens";
  const plotted = pts.filter((p) => (priced ? p.usd : p.tokens) !== null).map((p) => ({ ...p, x: priced ? p.usd : p.tokens }));
  const unpriced = pts.filter((p) => p.usd === null).map((p) => p.label);
  const unknown = pts.filter((p) => !priced && p.tokens === null).map((p) => p.label);
  const g = frame("Solve rate against " + (priced ? "cost" : "tokens") + " (per run)", 420, 260);
  axes(g, 50, 24, 400, 220, priced ? "cost (US$)" : "tokens (prompt + completion)", "solve rate");
  unjudgedNote(g, left);
  const show = (x) => (unit === "usd" ? money(x) : x.toLocaleString("en") + " tokens");
  const xmax = Math.max(1e-9, ...plotted.map((p) => p.x));
  for (const p of plotted) {
    const cx = 50 + (350 * p.x) / xmax, cy = 220 - (196 * p.y) / 100;
    g.append(svg("circle", { cx, cy, r: 5, fill: colorOf(p.i) }, svg("title", {}, p.label + ": " + p.y.toFixed(1) + "% at " + show(p.x))));
  }
  g.append(svg("text", { x: 50, y: 236, "text-anchor": "middle" }, "0"), svg("text", { x: 400, y: 236, "text-anchor": "end", class: "x-max" }, plotted.length ? show(xmax) : ""));
  const notes = [];
  if (!priced && unpriced.length) notes.push("plotted by tokens, not cost: no prices for " + unpriced.join(", "));
  if (unknown.length) notes.push("usage unknown, not plotted: " + unknown.join(", "));
  const panel = plotPanel("cost", g, plotted, ["run", "solve rate", "cost (US$)", "tokens (prompt + completion)"],
    judged.map((p) => [p.label, pct(p.y), p.usd === null ? "no prices" : money(p.usd), p.tokens === null ? "unknown" : p.tokens.toLocaleString("en")]), [1, 2, 3]);
  if (notes.length) panel.insertBefore(el("p", { class: "muted plot-note" }, notes.join("; ")), panel.children[1]);
  return panel;
}
function passAtKPlot() {
  const curves = index.runs.map((r, i) => ({ i, label: r.label, row: r.summary.repeats.find((x) => x.scenario === "total" && x.difficulty === "all") })).filter((c) => c.row && c.row.pass_at_k);
  if (curves.length === 0) return null;
  const g = frame("pass@k (runs with repeats)", 420, 260);
  axes(g, 50, 24, 400, 220, "k (attempts per sample)", "pass@k");
  const kmax = Math.max(1, ...curves.map((c) => Object.keys(c.row.pass_at_k).length));
  for (const c of curves) {
    const pts = Object.entries(c.row.pass_at_k).map(([k, v]) => [50 + (350 * (Number(k) - 1)) / Math.max(1, kmax - 1), 220 - (196 * v) / 100]);
    g.append(svg("polyline", { points: pts.map((p) => p.join(",")).join(" "), fill: "none", stroke: colorOf(c.i), "stroke-width": 2 }));
    for (const p of pts) g.append(svg("circle", { cx: p[0], cy: p[1], r: 3, fill: colorOf(c.i) }));
  }
  for (let k = 1; k <= kmax; k++) g.append(svg("text", { x: 50 + (350 * (k - 1)) / Math.max(1, kmax - 1), y: 234, "text-anchor": "middle" }, k));
  const ks = Array.from({ length: kmax }, (_, j) => String(j + 1));
  return plotPanel("pass-at-k", g, curves, ["run", ...ks.map((k) => "pass@" + k)], curves.map((c) => [c.label, ...ks.map((k) => (c.row.pass_at_k[k] === undefined ? "–" : (+c.row.pass_at_k[k]).toFixed(1) + "%"))]), ks.map((_, j) => j + 1));
}
function difficultyPlot() {
  const groups = [];
  const left = [];
  index.runs.forEach((r, i) => {
    for (const d of r.summary.by_difficulty) {
      if (d.solve_rate !== null) groups.push({ i, key: d.scenario + " " + d.difficulty, scenario: d.scenario, difficulty: d.difficulty, v: d.solve_rate, label: r.label, n: d.samples });
      else if (d.unjudged > 0) left.push(r.label + " " + d.scenario + " " + d.difficulty);
    }
  });
  if (groups.length === 0 && left.length === 0) return null;
  const keys = [...new Set(groups.map((x) => x.key))];
  const runs = index.runs.map((r, i) => ({ i, label: r.label })).filter((r) => groups.some((x) => x.i === r.i));
  const slotW = Math.max(48, 14 * runs.length + 16);
  const w = Math.min(900, Math.max(420, 70 + keys.length * slotW));
  const g = frame("Solve rate per difficulty", w, 280);
  const x1 = w - 20;
  axes(g, 50, 24, x1, 220, "", "solve rate");
  unjudgedNote(g, left);
  const slot = (x1 - 60) / Math.max(1, keys.length), bw = Math.max(3, (slot - 8) / Math.max(1, runs.length));
  keys.forEach((k, ki) => {
    groups.filter((x) => x.key === k).forEach((b) => {
      const pos = runs.findIndex((r) => r.i === b.i);
      // A 0 % bar is drawn as a line at the axis, its value written above it: absent and zero look different.
      const h = Math.max(2, (196 * b.v) / 100);
      const x = 56 + ki * slot + pos * bw;
      g.append(svg("rect", { x, y: 220 - h, width: bw - 1, height: h, fill: colorOf(b.i), class: "bar", "data-value": b.v }, svg("title", {}, b.label + " " + k + ": " + b.v.toFixed(1) + "% of " + b.n)));
      if (b.v === 0) g.append(svg("text", { x: x + (bw - 1) / 2, y: 214, "text-anchor": "middle", class: "zero" }, "0"));
    });
    // Two lines under the slot, cut to its width: the scenario, then the difficulty.
    const cx = 56 + ki * slot + slot / 2 - 4;
    const fit = (s) => (s.length * 6.5 > slot ? s.slice(0, Math.max(1, Math.floor(slot / 6.5) - 1)) + "…" : s);
    const first = groups.find((x) => x.key === k);
    g.append(svg("text", { x: cx, y: 233, "text-anchor": "middle" }, fit(first.scenario), svg("title", {}, k)), svg("text", { x: cx, y: 246, "text-anchor": "middle", class: "muted" }, fit(first.difficulty)));
  });
  g.append(svg("text", { x: (50 + x1) / 2, y: 268, "text-anchor": "middle", class: "x-label" }, "scenario and difficulty"));
  return plotPanel("difficulty", g, runs, ["run", "scenario", "difficulty", "samples", "solve rate"], groups.map((b) => [b.label, b.scenario, b.difficulty, b.n, b.v.toFixed(1) + "%"]), [3, 4]);
}
/* The plots that have something to draw; the empty ones named in a line, not given a panel. */
function plots() {
  const made = [["cost", costPlot()], ["pass@k (no run has repeats: --repeats)", passAtKPlot()], ["per difficulty (nothing judged)", difficultyPlot()]];
  const empty = made.filter(([, p]) => p === null).map(([n]) => n);
  return [el("div", { class: "plots" }, made.map(([, p]) => p)), empty.length ? el("p", { class: "muted", id: "empty-plots" }, "Not plotted: " + empty.join("; ") + ".") : null];
}
`;
