import { chunk, interleave } from "../util/interleave.js";
import { privateObjectStore } from "./objects.js";
import type { Repo } from "./repo.js";
import { MERGE_CONFIG } from "./repo.js";
import { countRemovedRegions } from "./markers.js";

const MARK = "@@gitgood-commit@@";

export interface RemergeReport {
  commit: string;
  /**
   * Files git reported a conflict for when re-merging the commit's parents, each with the number of
   * conflict marker regions the re-merged file holds. Empty when the re-merge is clean.
   */
  conflicts: Map<string, number>;
}

/**
 * Re-merges many merge commits with `git log --remerge-diff` (one process per job, no process per
 * merge) and reads, per merge, which files conflicted and how many marker regions each holds. Every
 * conflict leaves a `remerge CONFLICT` header in the file's section; the re-merged file's marker lines
 * show as removed lines (the labels name abbreviated commits, so no recorded resolution keeps them),
 * and they are counted by the rules of markers.ts; markers the recorded merge committed show as added
 * lines and are not counted.
 * Reports come in no particular order; if git stops part-way, the merges it did not reach are absent.
 * The objects a re-merge makes (git's `tmp_objdir-remerge-diff-*`) go to a private object store, so
 * the repository is never written to, not even when gitgood is killed mid-way.
 */
export async function* remergeReports(
  repo: Repo,
  merges: readonly string[],
  jobs: number,
): AsyncGenerator<RemergeReport> {
  if (merges.length === 0) return;
  const parts = Math.min(jobs, Math.ceil(merges.length / 32));
  const store = privateObjectStore(repo);
  try {
    yield* interleave(
      chunk(merges, parts).map((c) => () => scan(repo, c, store.env)),
      jobs,
    );
  } finally {
    store.remove();
  }
}

/** Reads a C-quoted path (`"a\\tb"`) as git writes it; returns the path and where it ended. */
export function unquotePath(s: string, from: number): { path: string; end: number } | null {
  if (s[from] !== '"') return null;
  const bytes: number[] = [];
  let i = from + 1;
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '"': 34, "\\": 92 };
  while (i < s.length && s[i] !== '"') {
    const ch = s[i] as string;
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
  let path: string | null = null;
  let inConflict = false;
  let removed: string[] = [];
  const endSection = (): void => {
    if (current && path !== null && inConflict) {
      current.conflicts.set(path, (current.conflicts.get(path) ?? 0) + countRemovedRegions(removed));
    }
    path = null;
    inConflict = false;
    removed = [];
  };
  for await (const line of repo.stream(args, { env, input: merges.map((m) => `${m}\n`).join(""), separator: 10 })) {
    if (line.startsWith(MARK)) {
      endSection();
      if (current) yield current;
      current = { commit: line.slice(MARK.length), conflicts: new Map() };
    } else if (line.startsWith("diff --git ")) {
      endSection();
      path = headerPath(line);
    } else if (line.startsWith("remerge CONFLICT") && current) {
      // A header line naming a path we could not read is kept under the raw header, so the merge is
      // still seen as conflicted (and then dropped for an unsupported file rather than miscounted).
      const key = path ?? line;
      if (!current.conflicts.has(key)) current.conflicts.set(key, 0);
      inConflict = true;
    } else if (inConflict && line.startsWith("-")) {
      removed.push(line.slice(1));
    }
  }
  endSection();
  if (current) yield current;
}
