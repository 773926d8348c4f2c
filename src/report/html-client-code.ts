/**
 * Code and text in the viewer's page, part of its script (src/report/html-client.ts): a tool call's
 * arguments as a path heading, the short arguments as JSON, and each argument holding code or text as a
 * code block of its own; a diff coloured by line, its file lines as headings. Every piece is put in the
 * page as text (a text node), never parsed as HTML, whatever an agent wrote in it.
 */
export const CODE_SCRIPT = String.raw`
/* Argument names that hold a path in the scenarios' tools. */
const PATH_ARG = /(^|_)(path|file|filename|file_path|filepath)$/i;
const looksLikeDiff = (text) => /^(diff --git |--- \S|\+\+\+ \S|@@ -\d)/m.test(text) && /^[+-](?![+-]{2} )/m.test(text);
/* A line of a diff by its kind: a file, a hunk, an added or removed line, or context. */
function diffClass(line) {
  if (/^(diff --git |\+\+\+ |--- |index [0-9a-f]+\.\.)/.test(line)) return "d-file";
  if (line.startsWith("@@")) return "d-hunk";
  if (line.startsWith("+")) return "d-add";
  if (line.startsWith("-")) return "d-del";
  return null;
}
/* Text as a code block; a diff, line by line in its colours. */
function codeBlock(text, cls) {
  const pre = el("pre", { class: "code" + (cls ? " " + cls : "") });
  if (!looksLikeDiff(text)) { pre.append(text); return pre; }
  pre.classList.add("diff");
  for (const line of text.split("\n")) {
    const c = diffClass(line);
    pre.append(c ? el("span", { class: c }, line) : line, "\n");
  }
  return pre;
}
/* A tool call's arguments: paths as headings, code and text as blocks, the rest as JSON; invalid JSON as it came. */
function argsView(text) {
  let v;
  try { v = JSON.parse(text); } catch { return codeBlock(text, "args-raw"); }
  if (!v || typeof v !== "object" || Array.isArray(v)) return el("pre", {}, JSON.stringify(v, null, 1));
  const heads = [], blocks = [], rest = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x === "string" && PATH_ARG.test(k) && !x.includes("\n")) heads.push(el("div", { class: "path", title: k }, x));
    else if (typeof x === "string" && (x.includes("\n") || x.length > 100)) blocks.push(el("div", { class: "arg-name" }, k), codeBlock(x, "arg-code"));
    else rest[k] = x;
  }
  return el("div", { class: "args" }, heads, Object.keys(rest).length ? el("pre", { class: "args-rest" }, JSON.stringify(rest, null, 1)) : null, blocks);
}
`;
