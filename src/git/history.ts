import { CommitGraphBuilder, type CommitGraph } from "./commitgraph.js";
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
  // One string per commit, whether it names the commit or a parent: the graph is kept to the end of
  // mining, and most commits are a parent too. Each is a copy of its own: a piece of the line that
  // `split` cut it from would keep the whole line alive.
  const strings = new Map<string, string>();
  const one = (oid: string): string => {
    const known = strings.get(oid);
    if (known !== undefined) return known;
    const own = Buffer.from(oid, "latin1").toString("latin1");
    strings.set(own, own);
    return own;
  };
  for await (const line of repo.stream(["rev-list", "--stdin", "--parents", "--timestamp"], {
    input: tips.map((t) => `${t}\n`).join(""),
    separator: 10,
  })) {
    if (!line) continue;
    const fields = line.split(" ");
    const time = Number(fields[0]);
    const oid = fields[1];
    if (!oid) continue;
    // Sliced, so the array has just the room it needs (one grown by push has room for 17).
    const parents = fields.slice(2);
    for (let i = 0; i < parents.length; i++) parents[i] = one(parents[i] as string);
    graph.set(one(oid), { parents, time });
  }
  return graph;
}

/**
 * Every commit reachable from `tips`, as readCommitGraph reads them (same order), kept compact: for
 * what holds a whole history to its end (mining).
 */
export async function loadCommitGraph(repo: Repo, tips: readonly string[]): Promise<CommitGraph> {
  const builder = new CommitGraphBuilder();
  if (tips.length === 0) return builder.finish();
  for await (const line of repo.stream(["rev-list", "--stdin", "--parents", "--timestamp"], {
    input: tips.map((t) => `${t}\n`).join(""),
    separator: 10,
  })) {
    if (!line) continue;
    const fields = line.split(" ");
    const oid = fields[1];
    if (!oid) continue;
    builder.add(oid, fields.slice(2), Number(fields[0]));
  }
  return builder.finish();
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
