import { lstatSync, mkdirSync, readdirSync, readlinkSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../../errors.js";
import { checkRelativePath, entryKind, readProjectFile, type ProjectPath } from "../../sandbox/paths.js";
import { at } from "../../util/at.js";

/**
 * The work tree as the SWE tools see it: walked without following a symbolic link (a link is listed
 * with its target), `.git` never shown, every path checked by src/sandbox/paths.ts first.
 */

/** Most entries `list_files` shows, and most matches `search_text` reports. */
const LIST_LIMIT = 2000;
const MATCH_LIMIT = 200;
/** Files larger than this are not searched. */
const SEARCH_MAX_BYTES = 2 * 1024 * 1024;

/** The directory an agent named (or the root), checked: no link on the way, inside the project. */
function directoryOf(root: string, given: string | undefined): { abs: string; rel: string } {
  if (given === undefined || given.trim() === "" || given.trim() === ".") return { abs: root, rel: "" };
  const p = checkRelativePath(root, given);
  const kind = entryKind(root, p);
  if (kind === "link") throw new GitGoodError("SYMLINK_REFUSED", `${p.shown} is a symbolic link; the tools never go through links`, { path: p.shown });
  if (kind === "missing") throw new GitGoodError("NOT_FOUND", `there is no ${p.shown} in the project`, { path: p.shown });
  return { abs: path.join(root, p.shown), rel: p.shown };
}

interface Entry {
  rel: string;
  kind: "file" | "dir" | "link" | "other";
  abs: string;
}

/** Entries below `dir` (depth-first, sorted by name), `.git` skipped, links not followed, at most `limit`. */
function walk(dir: { abs: string; rel: string }, maxDepth: number, limit: number): { entries: Entry[]; more: boolean } {
  const entries: Entry[] = [];
  let more = false;
  const visit = (abs: string, rel: string, depth: number): void => {
    let names: string[];
    try {
      names = readdirSync(abs).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (name === ".git") continue;
      if (entries.length >= limit) {
        more = true;
        return;
      }
      const childAbs = path.join(abs, name);
      const childRel = rel === "" ? name : `${rel}/${name}`;
      let st;
      try {
        st = lstatSync(childAbs);
      } catch {
        continue;
      }
      const kind = st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : st.isFile() ? "file" : "other";
      entries.push({ rel: childRel, kind, abs: childAbs });
      if (kind === "dir" && depth < maxDepth) visit(childAbs, childRel, depth + 1);
    }
  };
  const st = lstatSync(dir.abs);
  if (st.isDirectory()) visit(dir.abs, dir.rel, 1);
  else entries.push({ rel: dir.rel, kind: "file", abs: dir.abs });
  return { entries, more };
}

/** `list_files`: one entry per line, directories with a trailing `/`, links as `name -> target`. */
export function listFiles(root: string, given: string | undefined, maxDepth: number): string {
  const dir = directoryOf(root, given);
  const { entries, more } = walk(dir, maxDepth, LIST_LIMIT);
  const lines = entries.map((e) => {
    if (e.kind === "dir") return `${e.rel}/`;
    if (e.kind === "link") return `${e.rel} -> ${readlinkSync(e.abs, "utf8")} (symbolic link)`;
    return e.rel;
  });
  if (lines.length === 0) lines.push(`(${dir.rel === "" ? "the project" : dir.rel} is empty)`);
  if (more) lines.push(`[... more than ${LIST_LIMIT} entries; list a sub-directory to see the rest]`);
  return lines.join("\n");
}

/** `view_file`: the lines `start`..`end` (1-based, inclusive) of a file, each with its number. */
export function viewLines(root: string, given: string, start: number | undefined, end: number | undefined): string {
  const p = checkRelativePath(root, given);
  const kind = entryKind(root, p);
  if (kind === "link") throw new GitGoodError("SYMLINK_REFUSED", `${p.shown} is a symbolic link; the tools never read through links`, { path: p.shown });
  if (kind === "directory") throw new GitGoodError("NOT_A_FILE", `${p.shown} is a directory; use list_files`, { path: p.shown });
  const bytes = readProjectFile(root, p);
  if (bytes.includes(0)) return `[gitgood] ${p.shown} is a binary file of ${bytes.length} bytes; it cannot be shown`;
  const lines = bytes.toString("utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  const from = Math.max(1, start ?? 1);
  const to = Math.min(lines.length, end ?? lines.length);
  if (lines.length > 0 && from > lines.length) {
    throw new GitGoodError("INDEX_OUT_OF_RANGE", `${p.shown} has ${lines.length} line(s); start_line ${from} is past its end`, { path: p.shown });
  }
  const width = String(to).length;
  const body = lines.slice(from - 1, to).map((l, i) => `${String(from + i).padStart(width)}  ${l.replace(/\r$/, "")}`);
  return [`[gitgood] ${p.shown}: lines ${lines.length === 0 ? 0 : from}-${to} of ${lines.length}`, ...body].join("\n");
}

/** `search_text`: every line holding `needle` in the files below `given`, as `path:line: text`. */
export function searchText(root: string, needle: string, given: string | undefined, ignoreCase: boolean): string {
  if (needle === "") throw new GitGoodError("BAD_ARGUMENTS", "search_text needs a non-empty text to look for");
  const dir = directoryOf(root, given);
  const { entries } = walk(dir, Number.POSITIVE_INFINITY, 200_000);
  const want = ignoreCase ? needle.toLowerCase() : needle;
  const hits: string[] = [];
  let more = false;
  for (const e of entries) {
    if (e.kind !== "file") continue;
    let bytes: Buffer;
    try {
      if (lstatSync(e.abs).size > SEARCH_MAX_BYTES) continue;
      bytes = readProjectFile(root, checkRelativePath(root, e.rel));
    } catch {
      continue;
    }
    if (bytes.includes(0)) continue;
    const lines = bytes.toString("utf8").split("\n");
    for (let i = 0; i < lines.length; i++) {
      const line = at(lines, i);
      if (!(ignoreCase ? line.toLowerCase() : line).includes(want)) continue;
      if (hits.length >= MATCH_LIMIT) {
        more = true;
        break;
      }
      hits.push(`${e.rel}:${i + 1}: ${line.replace(/\r$/, "").slice(0, 300)}`);
    }
    if (more) break;
  }
  if (hits.length === 0) return `No line holds ${JSON.stringify(needle)}.`;
  if (more) hits.push(`[... more than ${MATCH_LIMIT} matches; search a narrower path or a longer text]`);
  return hits.join("\n");
}

/** Makes the missing directories above `p`, one component at a time, refusing any link on the way. */
export function makeParents(root: string, p: ProjectPath): void {
  const parts = p.shown.split("/").slice(0, -1);
  let rel = "";
  for (const part of parts) {
    rel = rel === "" ? part : `${rel}/${part}`;
    const q = checkRelativePath(root, rel);
    const kind = entryKind(root, q);
    if (kind === "missing") mkdirSync(path.join(root, rel));
    else if (kind === "link") throw new GitGoodError("SYMLINK_REFUSED", `path '${p.shown}' is not allowed: '${rel}' is a symbolic link`, { path: p.shown });
    else if (kind !== "directory") throw new GitGoodError("NOT_A_FILE", `${rel} is a file, not a directory`, { path: p.shown });
  }
}
