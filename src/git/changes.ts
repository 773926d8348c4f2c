import { deal, interleave } from "../util/interleave.js";
import type { Repo } from "./repo.js";
import { at } from "../util/at.js";

/** One file a change touches: its path, git's status letter (A, M, D, T) and the blobs before and after. */
export interface ChangedFile {
  path: string;
  status: string;
  oldOid: string;
  newOid: string;
}

/** What a commit changes against its first parent (a merge: the whole change its merged branch brought). */
interface FirstParentChange {
  commit: string;
  files: ChangedFile[];
  /** Git could not read the objects the diff needs: `files` is empty. */
  unreadable?: true;
}

/**
 * The files each commit changes against its first parent, merges included (`--diff-merges=first-parent`:
 * a merge shows what its merged branch brought), without rename detection, reading trees only. Root
 * commits and commits without a change give no record; a commit git cannot diff (a missing object) gives
 * an `unreadable` record and the rest are still diffed. `jobs` processes at once; records in no order.
 */
export async function* firstParentChanges(repo: Repo, commits: readonly string[], jobs: number): AsyncGenerator<FirstParentChange> {
  const parts = Math.max(1, Math.min(jobs, Math.ceil(commits.length / 64)));
  yield* interleave(
    deal(commits, parts).map((part) => () => changesOf(repo, part)),
    jobs,
  );
}

/** Diffs `commits` in one process; when git stops, the commit it stopped on is tried alone (and marked unreadable if it fails again), then the rest. */
async function* changesOf(repo: Repo, commits: readonly string[]): AsyncGenerator<FirstParentChange> {
  let rest = commits;
  while (rest.length > 0) {
    const answered = new Set<string>();
    try {
      for await (const c of parseChanges(repo, rest)) {
        answered.add(c.commit);
        yield c;
      }
      return;
    } catch {
      // diff-tree answers in input order, skipping commits without a change: the first commit not answered
      // after the last answered one is where it stopped.
      let last = -1;
      rest.forEach((c, i) => {
        if (answered.has(c)) last = i;
      });
      const suspect = rest[last + 1];
      if (suspect === undefined) return;
      let alone: FirstParentChange[] | null = [];
      try {
        for await (const c of parseChanges(repo, [suspect])) alone.push(c);
      } catch {
        alone = null;
      }
      if (alone === null) yield { commit: suspect, files: [], unreadable: true };
      else yield* alone;
      rest = rest.slice(last + 2);
    }
  }
}

async function* parseChanges(repo: Repo, commits: readonly string[]): AsyncGenerator<FirstParentChange> {
  const args = ["diff-tree", "--stdin", "-z", "-r", "--no-renames", "--no-ext-diff", "--no-textconv", "--raw", "--diff-merges=first-parent"];
  let current: FirstParentChange | null = null;
  let meta: string | null = null;
  for await (const token of repo.stream(args, { input: commits.map((c) => `${c}\n`).join("") })) {
    if (meta !== null) {
      const fields = meta.split(" ");
      meta = null;
      current?.files.push({ path: token, status: (fields[4] ?? "M").charAt(0), oldOid: fields[2] ?? "", newOid: fields[3] ?? "" });
      continue;
    }
    if (token === "") continue;
    if (token.startsWith(":")) {
      meta = token;
      continue;
    }
    if (current) yield current;
    current = { commit: token, files: [] };
  }
  if (current) yield current;
}

/** The messages of the commits a merge brought in (reachable from the merge, not from its first parent; merges left out), oldest first. */
export async function mergedMessages(repo: Repo, firstParent: string, merge: string): Promise<string[]> {
  const out = await repo.text(["log", "--no-merges", "--reverse", "--format=%B%x00", `${firstParent}..${merge}`, "--"]);
  return out
    .split("\0")
    .map((m) => m.replace(/^\n+|\n+$/g, ""))
    .filter((m) => m !== "");
}

/** The files at the root of `rev`'s tree with their blob ids (entries that are not blobs left out). */
export async function rootBlobs(repo: Repo, rev: string): Promise<Map<string, string>> {
  const out = (await repo.run(["ls-tree", "-z", "--end-of-options", rev])).stdout.toString("utf8");
  const blobs = new Map<string, string>();
  for (const entry of out.split("\0")) {
    const m = /^\d+ blob ([0-9a-f]+)\t([\s\S]+)$/.exec(entry);
    if (m) blobs.set(at(m, 2), at(m, 1));
  }
  return blobs;
}
