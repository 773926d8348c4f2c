import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../../errors.js";
import { findRegions, type Region } from "../../git/markers.js";
import { lineAt, linesAfter, linesBefore, usesCrlf } from "./lines.js";

export interface ConflictFile {
  path: string;
  /** Byte offset after the last resolution in this file; regions not yet resolved all lie after it. */
  cursor: number;
  /** Git left no markers (a file deleted on one side, say): the whole file is one conflict. */
  wholeFile: boolean;
}

export interface ConflictEntry {
  /** Index into `files`. */
  file: number;
  /** Where the agent's text went, once resolved. */
  resolved: { start: number; length: number } | null;
}

/** The conflicts of one stop (a merge, or one step of a rebase), in a stable order; saved with the scenario. */
export interface ConflictState {
  files: ConflictFile[];
  conflicts: ConflictEntry[];
}

export interface LocatedConflict {
  index: number;
  path: string;
  content: Buffer;
  region: Region;
  resolved: boolean;
  wholeFile: boolean;
}

function readOrEmpty(file: string): Buffer {
  return existsSync(file) ? readFileSync(file) : Buffer.alloc(0);
}

/** Numbers the conflicts of `paths` (in the order given), top to bottom within each file. */
export function scanConflicts(workDir: string, paths: readonly string[]): ConflictState {
  const state: ConflictState = { files: [], conflicts: [] };
  paths.forEach((p, fileIndex) => {
    const regions = findRegions(readOrEmpty(path.join(workDir, p)));
    state.files.push({ path: p, cursor: 0, wholeFile: regions.length === 0 });
    for (let i = 0; i < Math.max(1, regions.length); i++) state.conflicts.push({ file: fileIndex, resolved: null });
  });
  return state;
}

/** Index of the current conflict (the lowest unresolved one), or null when all are resolved. */
export function currentIndex(state: ConflictState): number | null {
  const i = state.conflicts.findIndex((c) => c.resolved === null);
  return i === -1 ? null : i;
}

export function unresolvedCount(state: ConflictState): number {
  return state.conflicts.filter((c) => c.resolved === null).length;
}

/** Finds conflict `index` in the work tree as it is now. */
export function locate(workDir: string, state: ConflictState, index: number): LocatedConflict {
  const entry = state.conflicts[index];
  if (!entry) {
    const last = state.conflicts.length - 1;
    throw new GitGoodError(
      "INDEX_OUT_OF_RANGE",
      `there is no conflict ${index}: conflict indices run from 0 to ${last}`,
      { index, count: state.conflicts.length },
    );
  }
  const file = state.files[entry.file] as ConflictFile;
  const content = readOrEmpty(path.join(workDir, file.path));
  const base = { index, path: file.path, content, wholeFile: file.wholeFile };
  if (entry.resolved) {
    const { start, length } = entry.resolved;
    return { ...base, region: { start, end: Math.min(content.length, start + length) }, resolved: true };
  }
  if (file.wholeFile) return { ...base, region: { start: 0, end: content.length }, resolved: false };
  const firstOpen = state.conflicts.findIndex((c) => c.file === entry.file && c.resolved === null);
  const region = findRegions(content, file.cursor)[index - firstOpen];
  if (!region) {
    throw new GitGoodError(
      "CONFLICT_LOST",
      `the conflict markers of ${file.path} were changed outside the tools; conflict ${index} cannot be found`,
      { path: file.path, index },
    );
  }
  return { ...base, region, resolved: false };
}

/**
 * Replaces the current conflict's region with `text`, byte for byte (UTF-8, nothing added or folded),
 * and records it. For a whole-file conflict an empty text deletes the file. Returns the index resolved.
 */
export function resolveCurrent(workDir: string, state: ConflictState, text: string): number {
  const index = currentIndex(state);
  if (index === null) throw new GitGoodError("NO_CONFLICT", "there is no unresolved conflict left");
  const at = locate(workDir, state, index);
  const entry = state.conflicts[index] as ConflictEntry;
  const file = state.files[entry.file] as ConflictFile;
  const full = path.join(workDir, at.path);
  const bytes = Buffer.from(text, "utf8");
  if (file.wholeFile && bytes.length === 0) rmSync(full, { force: true });
  else {
    const next = Buffer.concat([
      at.content.subarray(0, at.region.start),
      bytes,
      at.content.subarray(at.region.end),
    ]);
    writeFileSync(full, next);
  }
  entry.resolved = { start: at.region.start, length: bytes.length };
  file.cursor = at.region.start + bytes.length;
  return index;
}

/** Shows a conflict with `context` lines around it, between marker lines no source line can look like. */
export function renderConflict(at: LocatedConflict, total: number, context: number): string {
  const { content, region } = at;
  const first = lineAt(content, region.start);
  const body = content.toString("utf8", region.start, region.end);
  const bodyLines = body === "" ? 0 : body.split("\n").length - (body.endsWith("\n") ? 1 : 0);
  const last = Math.max(first, first + bodyLines - 1);
  const eol = usesCrlf(content) ? "CRLF (\\r\\n)" : "LF (\\n)";
  const state = at.resolved ? "resolved" : "unresolved";
  const out: string[] = [
    `[gitgood] conflict ${at.index} of ${total} (0-based, ${state}) in ${at.path}, lines ${first}-${last}; line endings ${eol}`,
  ];
  if (at.wholeFile && !at.resolved) {
    out.push("[gitgood] git left no conflict markers in this file: the whole file is the conflict (empty content deletes it)");
  }
  const before = linesBefore(content, region.start, context);
  if (context > 0) {
    out.push(`[gitgood] ${context} line(s) of context before:`);
    if (before.text !== "") out.push(strip(before.text));
  }
  out.push(at.resolved ? `[gitgood] resolution of conflict ${at.index}:` : `[gitgood] conflict ${at.index} region:`);
  if (body !== "") out.push(strip(body));
  if (context > 0) {
    out.push(`[gitgood] ${context} line(s) of context after:`);
    const after = linesAfter(content, region.end, context);
    if (after !== "") out.push(strip(after));
  }
  out.push("[gitgood] end");
  return out.join("\n");
}

/** Drops CRs before line breaks and the final line break, for display only. */
function strip(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(/\n$/, "");
}
