/** One file's part of a patch: the header lines and its hunks (each from an `@@` line on). */
export interface FileDiff {
  path: string;
  /** Git's status letter for the file: A (added), D (deleted), M (modified), T (type changed). */
  status: string;
  header: string;
  /** Hunk texts. A file change without `@@` hunks (binary, mode only, empty file) has one empty hunk. */
  hunks: string[];
}

/** A hunk as offered to the agent. */
export interface Hunk {
  /** Number shown as HUNK-<id>; hunks are renumbered from 0 after every commit. */
  id: number;
  path: string;
  status: string;
  /** Index of the file in the diff and of the hunk within the file. */
  file: number;
  within: number;
  text: string;
  /** For a hunk without `@@` lines: what kind of change it is. */
  note: string | null;
}

/**
 * Splits `git diff` output into files and hunks. `paths` and `statuses` come from
 * `git diff --name-status -z` with the same options, which lists the same files in the same order;
 * taking names from there avoids parsing quoted or space-holding names out of the patch.
 */
export function parseDiff(patch: string, entries: ReadonlyArray<{ path: string; status: string }>): FileDiff[] {
  const sections = patch === "" ? [] : patch.split(/^(?=diff --git )/m);
  if (sections.length !== entries.length) {
    throw new Error(`diff lists ${sections.length} files but --name-status lists ${entries.length}`);
  }
  return sections.map((section, i) => {
    const entry = entries[i] as { path: string; status: string };
    const parts = section.split(/^(?=@@ )/m);
    const header = parts[0] ?? "";
    const hunks = parts.slice(1);
    return { path: entry.path, status: entry.status, header, hunks: hunks.length > 0 ? hunks : [""] };
  });
}

/** Describes a change that has no `@@` hunk, from its header lines. */
function headerNote(f: FileDiff): string {
  if (/^GIT binary patch$/m.test(f.header) || /^Binary files /m.test(f.header)) {
    return f.status === "A" ? "binary file added" : f.status === "D" ? "binary file deleted" : "binary file changed";
  }
  if (f.status === "A") return "empty file added";
  if (f.status === "D") return "empty file deleted";
  const oldMode = /^old mode (\d+)$/m.exec(f.header)?.[1];
  const newMode = /^new mode (\d+)$/m.exec(f.header)?.[1];
  if (oldMode && newMode) return `mode changed from ${oldMode} to ${newMode}`;
  return "change without text hunks";
}

/** Numbers the hunks of the files `offered` accepts, in diff order. */
export function numberHunks(files: readonly FileDiff[], offered: (f: FileDiff) => boolean): Hunk[] {
  const out: Hunk[] = [];
  files.forEach((f, fileIndex) => {
    if (!offered(f)) return;
    f.hunks.forEach((text, within) => {
      out.push({
        id: out.length,
        path: f.path,
        status: f.status,
        file: fileIndex,
        within,
        text,
        note: text === "" ? headerNote(f) : null,
      });
    });
  });
  return out;
}

/** A patch holding exactly the chosen hunks (each file's header once, its chosen hunks in order). */
export function buildPatch(files: readonly FileDiff[], chosen: readonly Hunk[]): string {
  const byFile = new Map<number, Set<number>>();
  for (const h of chosen) byFile.set(h.file, (byFile.get(h.file) ?? new Set()).add(h.within));
  let patch = "";
  files.forEach((f, i) => {
    const picks = byFile.get(i);
    if (!picks) return;
    patch += f.header + f.hunks.filter((_, j) => picks.has(j)).join("");
  });
  return patch;
}

/**
 * A hunk as the agent sees it. Patches are held as latin1 strings (one character per byte, so
 * applying them is byte-exact whatever the encoding); the text is shown decoded as UTF-8.
 */
export function renderHunk(h: Hunk): string {
  const kind = h.status === "A" ? " (new file)" : h.status === "D" ? " (deleted file)" : "";
  if (h.note) return `HUNK-${h.id}  ${h.path}${kind}: ${h.note}`;
  const text = Buffer.from(h.text, "latin1").toString("utf8");
  return `HUNK-${h.id}  ${h.path}${kind}\n${text.replace(/\n$/, "")}`;
}
