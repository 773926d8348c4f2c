import { deal, interleave } from "../util/interleave.js";
import type { Slots } from "../util/slots.js";
import type { Repo } from "./repo.js";

export interface Branch {
  /** Full ref name, e.g. `refs/remotes/origin/main`. */
  ref: string;
  /** Short name, e.g. `origin/main`. */
  name: string;
  oid: string;
}

/**
 * Local and remote-tracking branches that point at commits, sorted by full ref name. Symbolic refs
 * (`origin/HEAD`), tags and other namespaces are not branches.
 */
export async function listBranches(repo: Repo): Promise<Branch[]> {
  const branches: Branch[] = [];
  const out = await repo.text([
    "for-each-ref",
    "--format=%(refname)%00%(refname:short)%00%(objectname)%00%(objecttype)%00%(symref)",
    "refs/heads",
    "refs/remotes",
  ]);
  for (const line of out.split("\n")) {
    if (!line) continue;
    const [ref, short, oid, type, symref] = line.split("\0");
    if (!ref || !short || !oid || type !== "commit" || symref) continue;
    const name = ref.startsWith("refs/heads/")
      ? ref.slice("refs/heads/".length)
      : ref.startsWith("refs/remotes/")
        ? ref.slice("refs/remotes/".length)
        : short;
    branches.push({ ref, name, oid });
  }
  branches.sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
  return branches;
}

export interface CommitNode {
  parents: string[];
  /** Committer time, seconds since the epoch. */
  time: number;
}

/** Every commit reachable from `tips`, with parents and committer time, from one `rev-list` pass. */
export async function readCommitGraph(repo: Repo, tips: readonly string[]): Promise<Map<string, CommitNode>> {
  const graph = new Map<string, CommitNode>();
  if (tips.length === 0) return graph;
  for await (const line of repo.stream(["rev-list", "--stdin", "--parents", "--timestamp"], {
    input: tips.map((t) => `${t}\n`).join(""),
    separator: 10,
  })) {
    if (!line) continue;
    const fields = line.split(" ");
    const time = Number(fields[0]);
    const oid = fields[1];
    if (!oid) continue;
    graph.set(oid, { parents: fields.slice(2), time });
  }
  return graph;
}

interface FileChange {
  path: string;
  /** Status letter from the raw diff: A, M, D, T (type change). */
  status: string;
  /** File modes from the raw diff (`160000` is a submodule commit, not a blob of this repository). */
  oldMode: string;
  newMode: string;
  oldOid: string;
  newOid: string;
  /** Added plus deleted lines; 0 for binary files. */
  lines: number;
  binary: boolean;
}

export interface CommitDiff {
  commit: string;
  files: FileChange[];
  /** Git could not read what the diff needs (a missing object): `files` is empty. */
  unreadable?: true;
}

/**
 * Diffs each commit against its first parent (the empty tree for a root) without rename detection,
 * streaming `git diff-tree --stdin` output. Commits whose diff is empty produce no record. With
 * `numstat: false` only trees are read (no blobs), which is what a blob-less partial clone can answer.
 * A commit git cannot diff (an object missing from a damaged copy) gets an `unreadable` record and the
 * others are still diffed. Work is split over `jobs` processes (each waits for one of `slots` when
 * given, shared with other passes); records come in no particular order.
 */
export async function* diffCommits(
  repo: Repo,
  commits: readonly string[],
  opts: { jobs: number; numstat: boolean; slots?: Slots },
): AsyncGenerator<CommitDiff> {
  // Small inputs are not worth a second process.
  const parts = Math.min(opts.jobs, Math.ceil(commits.length / 64));
  const { slots } = opts;
  yield* interleave(
    deal(commits, parts).map((c) => {
      const source = (): AsyncIterable<CommitDiff> => diffAll(repo, c, opts.numstat);
      return slots ? slots.gate(source) : source;
    }),
    opts.jobs,
  );
}

/** What the diff-tree process printed last: the header it printed last and whether that record is whole. */
interface Printed {
  last: CommitDiff | null;
  /** `--numstat` lines read for `last` (git prints one for every raw line once it has read the blobs). */
  numstats: number;
}

/**
 * Diffs `commits` in one process. Git prints every commit's header (`--always`) in input order once
 * it has read its trees, then its raw lines, then its numstat lines once it has read its blobs; so
 * when git stops, the commit it stopped on is the last one whose header was printed when that record
 * is cut short (a missing blob), else the next one in the input (a missing tree). That commit is
 * marked unreadable and a new process goes on after it: one process per unreadable commit, no more.
 */
async function* diffAll(repo: Repo, commits: readonly string[], numstat: boolean): AsyncGenerator<CommitDiff> {
  let rest = commits;
  while (rest.length > 0) {
    const printed: Printed = { last: null, numstats: 0 };
    try {
      yield* parseDiffTree(repo, rest, numstat, printed);
      return;
    } catch {
      const last = printed.last;
      const at = last === null ? -1 : rest.indexOf(last.commit);
      const whole = last !== null && (!numstat || printed.numstats >= last.files.length);
      if (last !== null && whole && last.files.length > 0) yield last;
      const stopped = whole ? at + 1 : at;
      const suspect = rest[stopped];
      if (suspect === undefined) return;
      yield { commit: suspect, files: [], unreadable: true };
      rest = rest.slice(stopped + 1);
    }
  }
}

const NUMSTAT = /^(\d+|-)\t(\d+|-)\t/;

async function* parseDiffTree(
  repo: Repo,
  commits: readonly string[],
  numstat: boolean,
  printed: Printed,
): AsyncGenerator<CommitDiff> {
  const args = ["diff-tree", "--stdin", "-z", "-r", "--root", "--no-renames", "--no-ext-diff", "--no-textconv", "--always", "--raw"];
  if (numstat) args.push("--numstat");
  let current: CommitDiff | null = null;
  let byPath = new Map<string, FileChange>();
  let pendingMeta: string | null = null;
  for await (const token of repo.stream(args, { input: commits.map((c) => `${c}\n`).join("") })) {
    if (pendingMeta !== null) {
      const meta = pendingMeta;
      pendingMeta = null;
      const fields = meta.split(" ");
      const change: FileChange = {
        path: token,
        status: (fields[4] ?? "M").charAt(0),
        oldMode: (fields[0] ?? "").slice(1),
        newMode: fields[1] ?? "",
        oldOid: fields[2] ?? "",
        newOid: fields[3] ?? "",
        lines: 0,
        binary: false,
      };
      current?.files.push(change);
      byPath.set(token, change);
      continue;
    }
    if (token === "") continue;
    if (token.startsWith(":")) {
      pendingMeta = token;
      continue;
    }
    const m = NUMSTAT.exec(token);
    if (m) {
      printed.numstats++;
      const change = byPath.get(token.slice(m[0].length));
      if (change) {
        if (m[1] === "-" || m[2] === "-") change.binary = true;
        else change.lines = Number(m[1]) + Number(m[2]);
      }
      continue;
    }
    // A header: the record before it is whole; one with an empty diff (printed for `--always`) is not a change.
    if (current && current.files.length > 0) yield current;
    current = { commit: token, files: [] };
    printed.last = current;
    printed.numstats = 0;
    byPath = new Map();
  }
  if (current && current.files.length > 0) yield current;
}

/** The author email of every commit on a branch, one per commit (repeats included), streamed. */
export async function* branchAuthorEmails(repo: Repo): AsyncGenerator<string> {
  for await (const line of repo.stream(["log", "--branches", "--remotes", "--format=%aE"], { separator: 10 })) {
    if (line) yield line;
  }
}

/** Committer time (seconds since the epoch) of the newest commit on any branch, or null when there is none. */
export async function lastBranchCommitTime(repo: Repo): Promise<number | null> {
  const r = await repo.run(["log", "-1", "--branches", "--remotes", "--format=%ct"], { okCodes: [0, 128] });
  const out = r.stdout.toString("utf8").trim();
  return out ? Number(out) : null;
}
