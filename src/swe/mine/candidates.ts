import { firstParentChanges, type ChangedFile } from "../../git/changes.js";
import type { CommitNode } from "../../git/history.js";
import type { Repo } from "../../git/repo.js";
import type { SweReject } from "./reasons.js";
import { fileRole } from "./test-files.js";
import { at } from "../../util/at.js";

/** A change that touches tests and source: the commit (a merge stands for its whole merged branch) and its first parent. */
export interface SweCandidate {
  commit: string;
  base: string;
  merge: boolean;
  /** Committer time, seconds since the epoch. */
  time: number;
  files: ChangedFile[];
  /** The mined languages of its source files, most files first. */
  languages: string[];
}

interface CandidateOptions {
  languages: readonly string[];
  minFiles: number;
  maxFiles: number;
  /** Seconds since the epoch; committed before: dropped. */
  since: number | null;
  /** Seconds since the epoch; committed after: dropped. */
  until: number | null;
  jobs: number;
}

/** Oldest first, ties by id: the order numbers and duplicates are decided in. */
function chronological(graph: ReadonlyMap<string, CommitNode>): string[] {
  return [...graph.entries()]
    .filter(([, n]) => n.parents.length > 0)
    .sort(([a, x], [b, y]) => x.time - y.time || (a < b ? -1 : a > b ? 1 : 0))
    .map(([oid]) => oid);
}

function mostFirst(langs: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const l of langs) counts.set(l, (counts.get(l) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([l]) => l);
}

/**
 * The candidates of a history: every commit with a parent on some line of it (a merge: its change
 * against its first parent, so a merged pull request is one candidate), kept when committed within the
 * dates, readable, touching at least one test file and one non-test source file of a mined language,
 * `minFiles` to `maxFiles` files in all, and not the very change of an older candidate. The others are
 * returned as rejects. Oldest first.
 */
export async function findCandidates(
  repo: Repo,
  graph: ReadonlyMap<string, CommitNode>,
  o: CandidateOptions,
): Promise<{ candidates: SweCandidate[]; rejects: SweReject[] }> {
  const rejects: SweReject[] = [];
  const order = chronological(graph);
  const dated = order.filter((oid) => {
    const n = graph.get(oid) as CommitNode;
    const inside = (o.since === null || n.time >= o.since) && (o.until === null || n.time <= o.until);
    if (!inside) rejects.push({ commit: oid, base: n.parents[0] ?? null, reason: "outside_dates", detail: new Date(n.time * 1000).toISOString() });
    return inside;
  });
  const changes = new Map<string, { files: ChangedFile[]; unreadable: boolean }>();
  for await (const c of firstParentChanges(repo, dated, o.jobs)) changes.set(c.commit, { files: c.files, unreadable: c.unreadable === true });
  const candidates: SweCandidate[] = [];
  const seen = new Set<string>();
  for (const oid of dated) {
    const node = graph.get(oid) as CommitNode;
    const base = at(node.parents, 0);
    const drop = (reason: SweReject["reason"], detail: string): void => {
      rejects.push({ commit: oid, base, reason, detail });
    };
    const change = changes.get(oid);
    if (change === undefined) {
      drop("no_tests", "changes no file");
      continue;
    }
    if (change.unreadable) {
      drop("missing_objects", "git could not diff it against its first parent");
      continue;
    }
    const roles = change.files.map((f) => fileRole(f.path, o.languages));
    const tests = roles.filter((r) => r.role === "test" && r.language !== null).length;
    const sources = roles.flatMap((r) => (r.role === "source" ? [r.language] : []));
    if (tests === 0) drop("no_tests", `${change.files.length} file(s), none a test of ${o.languages.join("/")}`);
    else if (sources.length === 0) drop("no_source", `${tests} test file(s) and no source file`);
    else if (change.files.length > o.maxFiles || change.files.length < o.minFiles) {
      drop("too_large", `${change.files.length} files (allowed ${o.minFiles}-${o.maxFiles})`);
    } else {
      const key = change.files.map((f) => `${f.path}\0${f.oldOid}\0${f.newOid}`).sort().join("\n");
      if (seen.has(key)) drop("duplicate", "an older candidate makes this very change");
      else {
        seen.add(key);
        candidates.push({ commit: oid, base, merge: node.parents.length > 1, time: node.time, files: change.files, languages: mostFirst(sources) });
      }
    }
  }
  return { candidates, rejects };
}
