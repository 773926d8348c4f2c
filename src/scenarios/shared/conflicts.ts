import { GitGoodError } from "../../errors.js";
import { findRegions, type Region } from "../../git/markers.js";
import { parsePath, showPath } from "../../git/paths.js";
import type { Repo } from "../../git/repo.js";
import { readBlob } from "../../git/trees.js";
import { unmergedEntries } from "../../git/worktree.js";
import {
  entryKind,
  projectPath,
  readProjectFile,
  readProjectLink,
  removeProjectEntry,
  writeProjectFile,
  writeProjectLink,
} from "../../sandbox/paths.js";
import { lineAt, linesAfter, linesBefore, usesCrlf } from "./lines.js";
import { at } from "../../util/at.js";

/** Git's mode of a symbolic link. */
export const LINK_MODE = "120000";

/** The target each side of a conflicted link has, as text (null where that side is no link). */
export interface LinkSides {
  base: string | null;
  ours: string | null;
  theirs: string | null;
}

/** One conflicted file of a stop: its path, how far the agent has resolved it, and what git left in it. */
export interface ConflictFile {
  /** The path in the notation of src/git/paths.ts (its exact bytes, shown escaped when not UTF-8). */
  path: string;
  /** Byte offset after the last resolution in this file; regions not yet resolved all lie after it. */
  cursor: number;
  /** Git left no markers (a file deleted on one side, a symbolic link): the whole file is one conflict. */
  wholeFile: boolean;
  /**
   * Git's mode of the conflicted entry (of the side git left in the work tree). A link (120000) is
   * shown and resolved as git stores it: its content is its target text, and a resolution makes a link.
   */
  mode: string;
  /** For a link, every side's target. */
  sides: LinkSides | null;
}

/** One conflict region: the file it is in, and where the agent's text went once resolved. */
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

interface LocatedConflict {
  index: number;
  path: string;
  content: Buffer;
  region: Region;
  resolved: boolean;
  wholeFile: boolean;
  /** The link's sides when the conflicted entry is a symbolic link, else null. */
  link: LinkSides | null;
}

/** What the index says of a conflicted path: the mode of the side git left in the work tree, and a link's sides. */
interface IndexConflict {
  mode: string;
  sides: LinkSides | null;
}

/**
 * Reads the unmerged entries of the index, by path notation. The side git leaves in the work tree is
 * ours (stage 2) when there is one, else theirs, else the base; its mode decides how the path is
 * shown and resolved. A link's sides are read from git's objects, never from the work tree.
 */
export async function readConflictIndex(repo: Repo): Promise<Map<string, IndexConflict>> {
  const out = new Map<string, IndexConflict>();
  for (const entry of await unmergedEntries(repo)) {
    const stage = (n: number): { mode: string } | undefined => entry.stages.find((s) => s.stage === n);
    const mode = (stage(2) ?? stage(3) ?? stage(1))?.mode ?? "100644";
    let sides: LinkSides | null = null;
    if (mode === LINK_MODE) {
      const target = async (n: number): Promise<string | null> =>
        stage(n)?.mode === LINK_MODE ? ((await readBlob(repo, `:${n}`, entry.path))?.toString("utf8") ?? null) : null;
      sides = { base: await target(1), ours: await target(2), theirs: await target(3) };
    }
    out.set(showPath(entry.path), { mode, sides });
  }
  return out;
}

/**
 * A conflicted path's current content as git would store it: a link's target text when the entry is a
 * link and a link is there, else the regular file's bytes (a link where a file belongs is refused, as
 * is any path through a link); nothing when the entry is gone.
 */
export function conflictedContent(workDir: string, file: Pick<ConflictFile, "path" | "mode">): Buffer {
  const p = projectPath(file.path);
  const kind = entryKind(workDir, p);
  if (kind === "missing") return Buffer.alloc(0);
  if (kind === "link" && file.mode === LINK_MODE) return readProjectLink(workDir, p);
  return readProjectFile(workDir, p);
}

/**
 * Numbers the conflicts of `paths` (notations, in the order given), top to bottom within each file.
 * `index` (from readConflictIndex) tells which entries are links; a path it does not name is a regular file.
 */
export function scanConflicts(
  workDir: string,
  paths: readonly string[],
  index: ReadonlyMap<string, IndexConflict> = new Map(),
): ConflictState {
  const state: ConflictState = { files: [], conflicts: [] };
  paths.forEach((p, fileIndex) => {
    const { mode, sides } = index.get(p) ?? { mode: "100644", sides: null };
    const regions = mode === LINK_MODE ? [] : findRegions(conflictedContent(workDir, { path: p, mode }));
    state.files.push({ path: p, cursor: 0, wholeFile: regions.length === 0, mode, sides });
    for (let i = 0; i < Math.max(1, regions.length); i++) state.conflicts.push({ file: fileIndex, resolved: null });
  });
  return state;
}

/**
 * The order conflicts are numbered in: the files a sample lists (in its order) that git reports
 * conflicted, then the other conflicted files, sorted; and the listed files git did not report. A
 * listed name matches a conflicted path by its notation, or by its bytes read as UTF-8 (as a miner
 * that decodes names lossily wrote it).
 */
export function conflictOrder(listed: readonly string[], unmerged: readonly string[]): { order: string[]; notConflicted: string[] } {
  const order: string[] = [];
  const notConflicted: string[] = [];
  for (const name of listed) {
    const match = unmerged.find((p) => !order.includes(p) && (p === name || parsePath(p).toString("utf8") === name));
    if (match === undefined) notConflicted.push(name);
    else order.push(match);
  }
  order.push(...unmerged.filter((p) => !order.includes(p)).sort());
  return { order, notConflicted };
}

/** The conflicted paths' bytes, to stage once they are resolved. */
export function conflictPaths(state: ConflictState): Buffer[] {
  return state.files.map((f) => parsePath(f.path));
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
  const file = at(state.files, entry.file);
  const content = conflictedContent(workDir, file);
  const link = file.mode === LINK_MODE ? (file.sides ?? { base: null, ours: null, theirs: null }) : null;
  const base = { index, path: file.path, content, wholeFile: file.wholeFile, link };
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
 * and records it. For a whole-file conflict an empty text deletes the file; for a link the text is the
 * new link's target. Returns the index resolved.
 */
export function resolveCurrent(workDir: string, state: ConflictState, text: string): number {
  const index = currentIndex(state);
  if (index === null) throw new GitGoodError("NO_CONFLICT", "there is no unresolved conflict left");
  const located = locate(workDir, state, index);
  const entry = at(state.conflicts, index);
  const file = at(state.files, entry.file);
  const p = projectPath(file.path);
  const bytes = Buffer.from(text, "utf8");
  if (file.wholeFile && bytes.length === 0) removeProjectEntry(workDir, p);
  else if (file.mode === LINK_MODE) writeProjectLink(workDir, p, bytes);
  else {
    const next = Buffer.concat([
      located.content.subarray(0, located.region.start),
      bytes,
      located.content.subarray(located.region.end),
    ]);
    writeProjectFile(workDir, p, next, file.mode === "100755" ? 0o755 : 0o644);
  }
  entry.resolved = { start: located.region.start, length: bytes.length };
  file.cursor = located.region.start + bytes.length;
  return index;
}

/**
 * Records that conflicted file `fileIndex` was written whole (MCR's extended tool): each of its
 * unresolved conflicts counts as resolved by the whole new content. Returns the indices resolved.
 */
export function resolveWholeFile(state: ConflictState, fileIndex: number, length: number): number[] {
  const done: number[] = [];
  state.conflicts.forEach((c, i) => {
    if (c.file !== fileIndex || c.resolved !== null) return;
    c.resolved = { start: 0, length };
    done.push(i);
  });
  const file = state.files[fileIndex];
  if (file) file.cursor = length;
  return done;
}

/** Shows a conflict with `context` lines around it, between marker lines no source line can look like. */
export function renderConflict(conflict: LocatedConflict, total: number, context: number): string {
  if (conflict.link) return renderLinkConflict(conflict, conflict.link, total);
  const { content, region } = conflict;
  const first = lineAt(content, region.start);
  const body = content.toString("utf8", region.start, region.end);
  const bodyLines = body === "" ? 0 : body.split("\n").length - (body.endsWith("\n") ? 1 : 0);
  const last = Math.max(first, first + bodyLines - 1);
  const eol = usesCrlf(content) ? "CRLF (\\r\\n)" : "LF (\\n)";
  const state = conflict.resolved ? "resolved" : "unresolved";
  const out: string[] = [
    `[gitgood] conflict ${conflict.index} of ${total} (0-based, ${state}) in ${conflict.path}, lines ${first}-${last}; line endings ${eol}`,
  ];
  if (conflict.wholeFile && !conflict.resolved) {
    out.push("[gitgood] git left no conflict markers in this file: the whole file is the conflict (empty content deletes it)");
  }
  const before = linesBefore(content, region.start, context);
  if (context > 0) {
    out.push(`[gitgood] ${context} line(s) of context before:`);
    if (before.text !== "") out.push(strip(before.text));
  }
  out.push(conflict.resolved ? `[gitgood] resolution of conflict ${conflict.index}:` : `[gitgood] conflict ${conflict.index} region:`);
  if (body !== "") out.push(strip(body));
  if (context > 0) {
    out.push(`[gitgood] ${context} line(s) of context after:`);
    const after = linesAfter(content, region.end, context);
    if (after !== "") out.push(strip(after));
  }
  out.push("[gitgood] end");
  return out.join("\n");
}

/** A conflicted symbolic link: its target text, as git stores it, and every side's target. */
function renderLinkConflict(conflict: LocatedConflict, sides: LinkSides, total: number): string {
  const state = conflict.resolved ? "resolved" : "unresolved";
  const side = (name: string, target: string | null): string => `${name} ${target === null ? "(no link)" : JSON.stringify(target)}`;
  const body = conflict.content.toString("utf8", conflict.region.start, conflict.region.end);
  const out = [
    `[gitgood] conflict ${conflict.index} of ${total} (0-based, ${state}) in ${conflict.path}: a symbolic link`,
    "[gitgood] a link's content is the path it points to, as git stores it; the tools never open what it points to. " +
      "The text you resolve it with becomes the link's target, exactly (empty content deletes the link).",
    `[gitgood] the sides' targets: ${side("base", sides.base)}, ${side("ours", sides.ours)}, ${side("theirs", sides.theirs)}`,
    conflict.resolved ? `[gitgood] resolution of conflict ${conflict.index}:` : `[gitgood] conflict ${conflict.index} region (the target now):`,
  ];
  if (body !== "") out.push(strip(body));
  out.push("[gitgood] end");
  return out.join("\n");
}

/** Drops CRs before line breaks and the final line break, for display only. */
function strip(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(/\n$/, "");
}
