import { deal, interleave } from "../util/interleave.js";
import type { Slots } from "../util/slots.js";
import { privateObjectStore } from "./objects.js";
import type { Repo } from "./repo.js";
import { MERGE_CONFIG } from "./repo.js";
import { countRemovedRegions, lineMarker } from "./markers.js";
import { at } from "../util/at.js";

const MARK = "@@gitgood-commit@@";

interface RemergeReport {
  commit: string;
  /**
   * Files git reported a conflict for when re-merging the commit's parents, each with the number of
   * conflict marker regions the re-merged file holds. Empty when the re-merge is clean.
   */
  conflicts: Map<string, number>;
  /** Every path of the remerge-diff: the conflicted files and the files the merge changed beyond the re-merge. */
  changed: string[];
  /**
   * The diff shows every difference between the re-merge and the recorded merge inside a conflict
   * region of a conflicted file (so replacing only the regions reproduces the merge). False when it
   * does not, or when the diff alone cannot tell (a mode change, a binary file, a file without regions).
   */
  withinRegions: boolean;
  /** Git stopped on this merge (an object it could not read): nothing else of the report is known. */
  failed?: true;
}

/**
 * Re-merges many merge commits with `git log --remerge-diff` (one process per job, no process per
 * merge) and reads, per merge, which files conflicted and how many marker regions each holds. Every
 * conflict leaves a `remerge CONFLICT` header in the file's section; the re-merged file's marker lines
 * show as removed lines (the labels name abbreviated commits, so no recorded resolution keeps them),
 * and they are counted by the rules of markers.ts; markers the recorded merge committed show as added
 * lines and are not counted.
 * Reports come in no particular order. When git stops on a merge (a missing object), that merge gets
 * a `failed` report and git goes on from the next one, so a damaged repository costs only its bad merges.
 * The objects a re-merge makes (git's `tmp_objdir-remerge-diff-*`) go to a private object store, so
 * the repository is never written to, not even when gitgood is killed mid-way.
 */
export async function* remergeReports(
  repo: Repo,
  merges: readonly string[],
  jobs: number,
  /** Shared with other passes: each process waits for one. */
  slots?: Slots,
): AsyncGenerator<RemergeReport> {
  if (merges.length === 0) return;
  const parts = Math.min(jobs, Math.ceil(merges.length / 32));
  const store = privateObjectStore(repo);
  try {
    yield* interleave(
      deal(merges, parts).map((c) => {
        const source = (): AsyncIterable<RemergeReport> => scanAll(repo, c, store.env);
        return slots ? slots.gate(source) : source;
      }),
      jobs,
    );
  } finally {
    store.remove();
  }
}

/** Scans `merges` in order; when git stops, reports the merge it stopped on as failed and goes on after it. */
async function* scanAll(repo: Repo, merges: readonly string[], env: Record<string, string>): AsyncGenerator<RemergeReport> {
  let rest = merges;
  while (rest.length > 0) {
    let answered = 0;
    try {
      for await (const report of scan(repo, rest, env)) {
        answered++;
        yield report;
      }
      return;
    } catch {
      const stopped = rest[answered];
      if (stopped !== undefined) yield { commit: stopped, conflicts: new Map(), changed: [], withinRegions: false, failed: true };
      rest = rest.slice(answered + 1);
    }
  }
}

/** Reads a C-quoted path (`"a\\tb"`) as git writes it; returns the path and where it ended. */
export function unquotePath(s: string, from: number): { path: string; end: number } | null {
  if (s[from] !== '"') return null;
  const bytes: number[] = [];
  let i = from + 1;
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '"': 34, "\\": 92 };
  while (i < s.length && s[i] !== '"') {
    const ch = at(s, i);
    if (ch === "\\") {
      const next = s[i + 1] ?? "";
      if (/[0-7]/.test(next)) {
        bytes.push(parseInt(s.slice(i + 1, i + 4), 8));
        i += 4;
        continue;
      }
      bytes.push(simple[next] ?? next.charCodeAt(0));
      i += 2;
      continue;
    }
    for (const b of Buffer.from(ch, "utf8")) bytes.push(b);
    i++;
  }
  return { path: Buffer.from(bytes).toString("utf8"), end: i + 1 };
}

/** The path of a `diff --git a/P b/P` header (no renames, so both sides name the same path). */
export function headerPath(line: string): string | null {
  const rest = line.slice("diff --git ".length);
  if (rest.startsWith('"')) {
    const q = unquotePath(rest, 0);
    return q ? q.path.replace(/^a\//, "") : null;
  }
  const len = (rest.length - 5) / 2;
  if (!Number.isInteger(len) || len < 1) return null;
  const p = rest.slice(2, 2 + len);
  return rest.slice(2 + len) === ` b/${p}` ? p : null;
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/;

/** What one file's section of a `-U0` remerge-diff shows. */
class Section {
  conflicted = false;
  /** Only hunks: no mode change, no added or deleted file, no binary file. */
  plain = true;
  /** Hunks as removed line ranges of the re-merged file: first line and count (0: lines added after `first`). */
  readonly hunks: { first: number; count: number }[] = [];
  /** Marker lines among the removed lines, with their line numbers, in order. */
  readonly markers: { line: number; kind: "open" | "close" }[] = [];
  private next = 0;

  constructor(readonly path: string | null) {}

  read(line: string): void {
    const hunk = HUNK.exec(line);
    if (hunk) {
      const first = Number(hunk[1]);
      const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
      this.hunks.push({ first, count });
      this.next = first;
    } else if (this.hunks.length === 0) {
      if (/^(old mode|new mode|deleted file mode|new file mode|Binary files) /.test(line)) this.plain = false;
    } else if (line.startsWith("-")) {
      const kind = lineMarker(line.slice(1));
      if (kind === "open" || kind === "close") this.markers.push({ line: this.next, kind });
      this.next++;
    }
  }

  /** Marker regions of the re-merged file, by their removed marker lines. */
  regionCount(): number {
    return countRemovedRegions(this.markers.map((m) => (m.kind === "open" ? "<<<<<<<" : ">>>>>>>")));
  }

  /**
   * Every hunk lies inside a region (from its `<<<<<<<` line to its `>>>>>>>` line) or adds lines right
   * next to one. Regions with a pair of committed markers inside are left to the exact check.
   */
  withinRegions(): boolean {
    if (!this.conflicted || !this.plain) return false;
    const regions: { first: number; last: number }[] = [];
    let open: number | null = null;
    for (const m of this.markers) {
      if (m.kind === "open") {
        if (open !== null) return false;
        open = m.line;
      } else {
        if (open === null) return false;
        regions.push({ first: open, last: m.line });
        open = null;
      }
    }
    if (open !== null || regions.length === 0) return false;
    return this.hunks.every((h) =>
      regions.some((r) => (h.count === 0 ? r.first - 1 <= h.first && h.first <= r.last : r.first <= h.first && h.first + h.count - 1 <= r.last)),
    );
  }
}

async function* scan(repo: Repo, merges: readonly string[], env: Record<string, string>): AsyncGenerator<RemergeReport> {
  const args = [
    ...MERGE_CONFIG,
    "-c",
    "core.quotePath=false",
    "log",
    "--no-walk=unsorted",
    "--stdin",
    "--remerge-diff",
    "-U0",
    "--no-renames",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    `--format=${MARK}%H`,
  ];
  let current: RemergeReport | null = null;
  let section: Section | null = null;
  const endSection = (): void => {
    if (current && section) {
      // A header line naming a path we could not read is kept under the raw header, so the merge is
      // still seen as changed there (and then dropped for an unsupported file rather than miscounted).
      const key = section.path ?? "";
      current.changed.push(key);
      if (section.conflicted) current.conflicts.set(key, (current.conflicts.get(key) ?? 0) + section.regionCount());
      if (!section.withinRegions()) current.withinRegions = false;
    }
    section = null;
  };
  for await (const line of repo.stream(args, { env, input: merges.map((m) => `${m}\n`).join(""), separator: 10 })) {
    if (line.startsWith(MARK)) {
      endSection();
      if (current) yield current;
      current = { commit: line.slice(MARK.length), conflicts: new Map(), changed: [], withinRegions: true };
    } else if (line.startsWith("diff --git ")) {
      endSection();
      section = new Section(headerPath(line) ?? line);
    } else if (line.startsWith("remerge CONFLICT") && section && section.hunks.length === 0) {
      section.conflicted = true;
    } else {
      section?.read(line);
    }
  }
  endSection();
  if (current) yield current;
}
