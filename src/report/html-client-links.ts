/**
 * The viewer's address, part of its page's script (src/report/html-client.ts): every view state that
 * matters (the tab, the filters, the attempt open and its view, the comparison, the runs side by side)
 * lives in the address's fragment (#…), so that a link opens the same view and a reload keeps it, on the
 * server's page and in the static `report --html` file alike. The fragment holds only that state: the
 * server's token stays where it came, in the query, and never goes into a fragment or a link the page makes.
 */
export const LINKS_SCRIPT = String.raw`
let currentTab = "summary";
let detailView = "transcript";
const TABS = ["summary", "samples", "compare", "side"];
/* The fragment for the current state with some parts changed: { tab, selected, filters, side }. */
function hashFor(over) {
  const p = new URLSearchParams();
  const tab = over.tab ?? currentTab;
  p.set("tab", tab);
  if (state.q) p.set("q", state.q);
  if (state.sort !== "key") p.set("sort", state.sort);
  for (const [f, v] of Object.entries(over.filters ?? state.filters)) if (v) p.set("f." + f, v);
  const sel = over.selected !== undefined ? over.selected : selected;
  if (sel && tab === "samples") {
    p.set("run", String(sel.run));
    p.set("key", sel.key);
    if (detailView !== "transcript") p.set("view", detailView);
  }
  if (cmp.a !== "0") p.set("a", cmp.a);
  if (cmp.b !== "1") p.set("b", cmp.b);
  if (cmp.only) p.set("only", "1");
  if (cmp.differs) p.set("differs", "1");
  if (cmp.scenario) p.set("cs", cmp.scenario);
  const sd = over.side ?? side;
  if (tab === "side" && sd.sample) {
    p.set("sample", sd.sample);
    p.set("scenario", sd.scenario);
    p.set("runs", sd.runs.join(","));
  }
  return "#" + p.toString();
}
let written = "";
/* Puts the current state in the address: a new history entry for a move (a tab, an attempt), in place for a filter. */
function writeHash(push) {
  const h = hashFor({});
  if (h === location.hash) return;
  written = h;
  try { history[push ? "pushState" : "replaceState"](null, "", h); } catch { location.replace(h); }
}
/* Reads the state from the address; what it does not name is reset to its default. */
function readHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  const tab = p.get("tab");
  currentTab = TABS.includes(tab) ? tab : "summary";
  state.q = p.get("q") || "";
  state.sort = p.get("sort") || "key";
  state.filters = {};
  for (const [k, v] of p) if (k.startsWith("f.")) state.filters[k.slice(2)] = v;
  const run = Number(p.get("run"));
  selected = p.get("key") !== null && Number.isInteger(run) ? { run, key: p.get("key") } : null;
  detailView = p.get("view") === "timeline" ? "timeline" : "transcript";
  cmp.a = p.get("a") || "0";
  cmp.b = p.get("b") || "1";
  cmp.only = p.get("only") === "1";
  cmp.differs = p.get("differs") === "1";
  cmp.scenario = p.get("cs") || "";
  side.sample = p.get("sample") || "";
  side.scenario = p.get("scenario") || "";
  side.runs = (p.get("runs") || "").split(",").filter((x) => /^\d+$/.test(x)).map(Number);
}
/* Draws the state the address names (after the index is loaded, or when the address changes: a link, back, forward). */
function restoreView() {
  shown = 300;
  renderFilters(); renderList();
  showTab(currentTab, false);
  if (selected && currentTab === "samples") openAttempt(selected.run, selected.key, false);
  else $("detail").replaceChildren(el("p", { class: "muted" }, "Choose an attempt to see its transcript."));
}
function followAddress() {
  if (location.hash === written) return;
  written = location.hash;
  readHash();
  if (index.runs.length) restoreView();
}
window.addEventListener("hashchange", followAddress);
window.addEventListener("popstate", followAddress);
readHash();
written = location.hash;
`;
