/**
 * One attempt in the viewer's page, part of its script (src/report/html-client.ts): its header, its
 * outcome, then its transcript (turn by turn) or its timeline (every recorded event in order, with its
 * time since the attempt started: model calls with tokens, latency and cache hits, tool calls and their
 * results, notes, the end and the score; long texts folded, errors marked); and one sample across 2-4
 * runs side by side.
 */
export const ATTEMPT_SCRIPT = String.raw`
/* A text in a fold when it is long, open when it is short. */
function folded(label, text, cls) {
  const long = text.length > 1200 || text.split("\n").length > 16;
  return el("details", { open: long ? null : true, class: "fold" }, el("summary", {}, label + (long ? " (" + text.split("\n").length + " lines)" : "")), codeBlock(text, cls));
}
function attemptHeader(a) {
  const r = a.record;
  return [el("p", {}, verdictSpan(r.verdict), " · ", r.agent, " · ", r.repository, " · ", r.difficulty, " · ", r.turns + " turn(s), " + r.tool_calls + " call(s), ", (r.usage_known === false ? "tokens unknown" : (r.tokens.prompt + r.tokens.completion) + " tokens") + ", ", money(r.cost_usd), ", ", secs(r.duration_ms)),
    r.error ? el("p", { class: "v-error" }, r.error.code + ": " + r.error.message) : null,
    r.failure_labels && r.failure_labels.length ? el("p", { class: "labels" }, "failure labels: ", r.failure_labels.flatMap((l, i) => [i ? ", " : "", el("a", { class: "label", href: hashFor({ tab: "samples", selected: null, filters: { label: l } }), title: "every attempt with this label" }, l)])) : null,
    a.problem ? el("p", { class: "v-error" }, a.problem) : null].filter((x) => x !== null);
}
function transcriptNodes(a) {
  const out = [];
  if (a.system) out.push(el("details", {}, el("summary", {}, "system prompt"), el("pre", {}, a.system)));
  if (a.task !== null) out.push(el("details", { open: true }, el("summary", {}, "task"), el("pre", {}, a.task)));
  a.turns.forEach((t, i) => {
    const meta = ["turn " + (i + 1)];
    if (t.usage) meta.push(t.usage.prompt_tokens + " prompt + " + t.usage.completion_tokens + " completion tokens" + (t.usage.cached ? " (cache hit)" : ""));
    if (t.latency_ms !== null) meta.push(secs(t.latency_ms));
    if (t.at_ms !== null) meta.push("at " + secs(t.at_ms));
    out.push(el("div", { class: "turn" }, el("div", { class: "meta" }, meta.join(" · ")), t.content !== null ? el("pre", {}, t.content) : null,
      t.calls.map((c) => el("div", { class: "call" + (c.result && !c.result.ok ? " fail" : "") }, el("b", {}, c.name), argsView(c.arguments), el("div", { class: "meta" }, c.result ? (c.result.ok ? "result" : "failed") : "no result recorded"), c.result ? codeBlock(c.result.output) : null)),
      t.notes.map((n) => el("pre", { class: "muted" }, n))));
  });
  const stray = strayNotes(a);
  if (stray.length) out.push(el("h3", {}, "Notes and agent output (stdout, stderr)"), stray.map((n) => el("pre", {}, n)));
  return out;
}
const strayNotes = (a) => a.notes.filter((n) => !a.turns.some((t) => t.notes.includes(n) || t.calls.some((c) => c.result && c.result.output === n)));
/* A note that says something failed or a limit was hit: marked as an error in the timeline. */
const ALARM = /\b(error|failed|failure|malformed|timed? ?out|limit|killed|denied|refused|exception)\b/i;
/* The attempt's events in the order recorded, each with its time since the start when the trajectory has it. */
function timelineEvents(a) {
  const r = a.record;
  const ev = [{ at: 0, kind: "start", text: "attempt started" + (r.started_at ? " (" + r.started_at + ")" : "") }];
  if (a.task !== null) ev.push({ at: null, kind: "task", text: "task given to the agent", body: a.task });
  a.turns.forEach((t, i) => {
    if (t.usage || t.content !== null) {
      const parts = ["model call " + (i + 1)];
      if (t.usage) parts.push(t.usage.prompt_tokens + " prompt + " + t.usage.completion_tokens + " completion tokens" + (t.usage.cached ? ", cache hit" : ""));
      if (t.latency_ms !== null) parts.push("latency " + secs(t.latency_ms));
      ev.push({ at: t.at_ms, kind: "model", text: parts.join(" · "), body: t.content || null });
    }
    for (const c of t.calls) {
      ev.push({ at: c.at_ms, kind: "tool", text: "tool call: " + c.name, args: c.arguments });
      if (c.result) ev.push({ at: c.done_ms, kind: c.result.ok ? "result" : "error", text: (c.result.ok ? "result of " : "failed: ") + c.name + (c.done_ms !== null && c.at_ms !== null ? " after " + secs(c.done_ms - c.at_ms) : ""), body: c.result.output });
      else ev.push({ at: null, kind: "error", text: "no result was recorded for " + c.name });
    }
    for (const n of t.notes) ev.push({ at: null, kind: ALARM.test(n) ? "error" : "note", text: "note", body: n });
  });
  for (const n of strayNotes(a)) ev.push({ at: null, kind: ALARM.test(n) ? "error" : "note", text: "agent output or note", body: n });
  if (a.outcome.ended_by) ev.push({ at: null, kind: "end", text: "the agent's loop ended: " + a.outcome.ended_by });
  const ju = a.outcome.judge_usage;
  if (Array.isArray(ju)) for (const j of ju) ev.push({ at: null, kind: "judge", text: "judge " + j.model + ": " + j.requests + " request(s), " + (j.prompt_tokens + j.completion_tokens) + " tokens" + (j.cache_hits ? ", " + j.cache_hits + " cache hit(s)" : "") });
  if (r.error) ev.push({ at: r.duration_ms, kind: "error", text: "ended with " + r.error.code, body: r.error.message });
  ev.push({ at: r.duration_ms, kind: "score", text: "scored: " + r.verdict + (r.status !== "success" ? " (" + r.status + ")" : "") });
  return ev;
}
function timelineNode(a) {
  return el("ol", { class: "timeline", id: "timeline" }, timelineEvents(a).map((e) => el("li", { class: "ev ev-" + e.kind, "data-kind": e.kind, "data-at": e.at === null || e.at === undefined ? null : e.at },
    el("span", { class: "ev-at" }, e.at === null || e.at === undefined ? "" : "+" + secs(e.at)), el("span", { class: "ev-kind" }, e.kind),
    el("div", { class: "ev-body" }, el("div", {}, e.text), e.args !== undefined ? argsView(e.args) : null, e.body ? folded(e.kind === "model" ? "message" : "text", e.body) : null))));
}
/* The attempt in the detail panel: header, outcome, timings, then the transcript or the timeline. */
function attemptNodes(a, view, run) {
  const r = a.record;
  const out = [el("h2", { id: "attempt-title" }, r.sample_id + " · " + r.scenario), ...attemptHeader(a)];
  const links = [];
  if (a.href) links.push(el("a", { href: a.href, class: "trajectory-link" }, "trajectory file"));
  const others = index.runs.map((_, i) => i).filter((i) => index.rows.some((x) => x.run === i && x.sample_id === r.sample_id && x.scenario === r.scenario));
  if (others.length > 1) links.push(el("a", { href: hashFor({ tab: "side", side: { sample: r.sample_id, scenario: r.scenario, runs: others.slice(0, 4) } }), class: "side-link" }, "this sample in " + Math.min(4, others.length) + " runs side by side"));
  if (links.length) out.push(el("p", {}, links.flatMap((l, i) => (i ? [" · ", l] : [l]))));
  out.push(el("h3", {}, "Outcome"), familyView(a.family || []), outcomeView(r, a.outcome, (a.family || []).length > 0));
  if (a.timings && a.timings.length) out.push(el("h3", {}, "Timings"), table(["phase", "time", "share"], a.timings.map((t) => [t.phase, secs(t.ms), r.duration_ms > 0 ? ((100 * t.ms) / r.duration_ms).toFixed(0) + "%" : "–"]), [1, 2]));
  const pick = (v) => el("button", { class: "view-pick" + (view === v ? " on" : ""), "data-view": v, onclick: () => { detailView = v; writeHash(true); openAttempt(run, r.key, false); } }, v);
  out.push(el("div", { class: "view-picks" }, pick("transcript"), pick("timeline")));
  out.push(...(view === "timeline" ? [timelineNode(a)] : transcriptNodes(a)));
  return out;
}

/* ---------- one sample across runs ---------- */
const side = { sample: "", scenario: "", runs: [] };
async function renderSide() {
  const s = $("side");
  if (!side.sample) { s.replaceChildren(el("p", { class: "muted" }, "Open a sample from the Compare matrix, or from an attempt, to see it in 2 to 4 runs side by side.")); return; }
  const having = index.runs.map((_, i) => i).filter((i) => index.rows.some((x) => x.run === i && x.sample_id === side.sample && x.scenario === side.scenario));
  const chosen = side.runs.filter((i) => having.includes(i)).slice(0, 4);
  const picks = el("div", { class: "controls", id: "side-runs" }, "runs: ", having.map((i) => el("label", {}, el("input", { type: "checkbox", value: String(i), checked: chosen.includes(i), disabled: !chosen.includes(i) && chosen.length >= 4,
    onchange: (e) => { side.runs = e.target.checked ? [...chosen, i].sort((x, y) => x - y) : chosen.filter((x) => x !== i); writeHash(true); renderSide(); } }), " " + index.runs[i].label)));
  const cols = el("div", { class: "side-cols" });
  // Set through the style object: the page's policy refuses style attributes.
  cols.style.gridTemplateColumns = "repeat(" + Math.max(1, chosen.length) + ",minmax(0,1fr))";
  s.replaceChildren(el("h2", { id: "side-title" }, side.sample + " · " + side.scenario), picks, cols);
  const wanted = side.sample + "\u0000" + side.scenario + "\u0000" + chosen.join(",");
  for (const i of chosen) {
    const rows = index.rows.filter((x) => x.run === i && x.sample_id === side.sample && x.scenario === side.scenario);
    const col = el("div", { class: "side-col", "data-run": i }, el("h3", {}, index.runs[i].label + (rows.length > 1 ? " (attempt 1 of " + rows.length + ")" : "")), el("p", { class: "muted" }, "loading…"));
    cols.append(col);
    getAttempt(i, rows[0].key).then((a) => {
      if (side.sample + "\u0000" + side.scenario + "\u0000" + side.runs.filter((x) => having.includes(x)).slice(0, 4).join(",") !== wanted) return;
      col.replaceChildren(col.firstChild, el("p", {}, el("a", { href: hashFor({ tab: "samples", selected: { run: i, key: rows[0].key } }) }, "open the attempt")), ...attemptHeader(a), el("h3", {}, "Outcome"), familyView(a.family || []), outcomeView(a.record, a.outcome, (a.family || []).length > 0), el("h3", {}, "Transcript"), ...transcriptNodes(a));
    }, (e) => col.replaceChildren(col.firstChild, el("p", {}, "cannot load: " + e.message)));
  }
}
`;
