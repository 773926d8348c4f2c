import { at } from "./at.js";

/**
 * Reading unified diffs (what `git diff` and `diff -u` write) without applying them: which files a
 * patch touches, how many lines it changes, whether a text is a patch at all. Pure functions on text.
 */

/** One file of a patch: its path before and after (null for a file the patch adds or deletes). */
interface DiffFile {
  old: string | null;
  new: string | null;
}

const HUNK = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/;

/** Follows hunk bodies by their headers' line counts, so a body line never passes for a header. */
class HunkBody {
  private oldLeft = 0;
  private newLeft = 0;
  changed = 0;

  /** True when `line` belongs to a hunk (its header or body). */
  consume(line: string): boolean {
    if (this.oldLeft > 0 || this.newLeft > 0) {
      if (line.startsWith("+")) {
        this.changed++;
        this.newLeft--;
      } else if (line.startsWith("-")) {
        this.changed++;
        this.oldLeft--;
      } else if (!line.startsWith("\\")) {
        this.oldLeft--;
        this.newLeft--;
      }
      return true;
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
    if (!hunk) return false;
    this.oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
    this.newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
    return true;
  }
}

/** A path from a `---`/`+++` line or a `diff --git` header: prefix `a/`/`b/` removed, quotes undone, a timestamp cut. */
function cleanPath(raw: string, prefix: string): string | null {
  let p = raw.replace(/\r$/, "");
  if (p.startsWith('"')) {
    try {
      p = JSON.parse(p.replace(/\\([0-7]{3})/g, (_, o: string) => `\\u00${parseInt(o, 8).toString(16).padStart(2, "0")}`)) as string;
    } catch {
      p = p.slice(1, -1);
    }
  } else {
    p = p.split("\t")[0] ?? p;
  }
  if (p === "/dev/null") return null;
  return p.startsWith(prefix) ? p.slice(prefix.length) : p;
}

/** The `diff --git a/X b/Y` header's two paths (for sections without `---`/`+++` lines: binary, mode, rename). */
function gitHeaderPaths(line: string): DiffFile | null {
  const rest = line.slice("diff --git ".length);
  const quoted = /^("(?:[^"\\]|\\.)*") ("(?:[^"\\]|\\.)*")$/.exec(rest);
  if (quoted) return { old: cleanPath(at(quoted, 1), "a/"), new: cleanPath(at(quoted, 2), "b/") };
  const mid = rest.indexOf(" b/");
  if (!rest.startsWith("a/") || mid < 0) return null;
  return { old: rest.slice(2, mid), new: rest.slice(mid + 3) };
}

/**
 * The files a patch touches, in its order, each once. `git diff` sections are read from their headers
 * (renames, deletions, binary files included); plain `diff -u` sections from their `---`/`+++` lines.
 */
export function diffFiles(patch: string): DiffFile[] {
  const files: DiffFile[] = [];
  const lines = patch.split("\n");
  let header: DiffFile | null = null;
  const push = (f: DiffFile) => {
    if (!files.some((g) => g.old === f.old && g.new === f.new)) files.push(f);
  };
  const body = new HunkBody();
  for (let i = 0; i < lines.length; i++) {
    const line = at(lines, i);
    if (body.consume(line)) continue;
    if (line.startsWith("diff --git ")) {
      if (header) push(header);
      header = gitHeaderPaths(line);
      continue;
    }
    const h: DiffFile | null = header;
    if (h && line.startsWith("rename from ")) h.old = line.slice(12);
    else if (h && line.startsWith("rename to ")) h.new = line.slice(10);
    else if (h && line.startsWith("new file mode")) h.old = null;
    else if (h && line.startsWith("deleted file mode")) h.new = null;
    if (line.startsWith("--- ") && (lines[i + 1] ?? "").startsWith("+++ ")) {
      const found = { old: cleanPath(line.slice(4), "a/"), new: cleanPath(at(lines, i + 1).slice(4), "b/") };
      if (h) Object.assign(h, found);
      else push(found);
      i++;
    }
  }
  if (header) push(header);
  return files;
}

/** Every path a patch reads or writes (old and new names), sorted, each once. */
export function diffPaths(patch: string): string[] {
  const all = new Set<string>();
  for (const f of diffFiles(patch)) {
    if (f.old !== null) all.add(f.old);
    if (f.new !== null) all.add(f.new);
  }
  return [...all].sort();
}

/** Lines a patch adds or removes (`+`/`-` lines inside hunks, counted by the hunks' own line counts). */
export function changedLines(patch: string): number {
  const body = new HunkBody();
  for (const line of patch.split("\n")) body.consume(line);
  return body.changed;
}

/**
 * Whether `text` is a patch: at least one file section (`---`/`+++` with a hunk, or a git binary or
 * mode-only section), and nothing before the first section but a `diff` header.
 */
export function isUnifiedDiff(text: string): boolean {
  const lines = text.split("\n");
  const first = lines.findIndex((l) => l.trim() !== "");
  if (first < 0) return false;
  const start = at(lines, first);
  if (!start.startsWith("diff ") && !start.startsWith("--- ")) return false;
  if (/^(GIT binary patch|Binary files .* differ|(old|new) mode |(new|deleted) file mode |rename (from|to) )/m.test(text) && start.startsWith("diff --git ")) {
    return true;
  }
  let sawFiles = false;
  for (let i = first; i < lines.length; i++) {
    const l = at(lines, i);
    if (l.startsWith("--- ") && (lines[i + 1] ?? "").startsWith("+++ ")) sawFiles = true;
    if (sawFiles && HUNK.test(l)) return true;
  }
  return false;
}
