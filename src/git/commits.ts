import { GitGoodError } from "../errors.js";
import { objectKinds } from "./clone.js";
import type { Repo } from "./repo.js";
import { at } from "../util/at.js";

export interface Person {
  name: string;
  email: string;
  /** Git's raw form: seconds since the epoch and the zone, e.g. `1704067260 +0000`. */
  date: string;
}

export interface CommitInfo {
  oid: string;
  tree: string;
  parents: string[];
  author: Person;
  committer: Person;
  subject: string;
  message: string;
  /** Committer date, ISO 8601 (for people). */
  committedIso: string;
}

const FORMAT = ["%H", "%T", "%P", "%an", "%ae", "%ad", "%cn", "%ce", "%cd", "%cI", "%s", "%B"].join("%x00");

const FIELDS = 12;

function parseCommit(f: readonly string[]): CommitInfo {
  const at = (i: number): string => f[i] ?? "";
  return {
    oid: at(0),
    tree: at(1),
    parents: at(2) === "" ? [] : at(2).split(" "),
    author: { name: at(3), email: at(4), date: at(5) },
    committer: { name: at(6), email: at(7), date: at(8) },
    committedIso: at(9),
    subject: at(10),
    message: f.slice(11).join("\0").replace(/\n+$/, ""),
  };
}

/** Reads one commit's metadata and message (trailing line breaks dropped, nothing else changed). */
export async function readCommit(repo: Repo, rev: string): Promise<CommitInfo> {
  const r = await repo.run(["show", "-s", "--date=raw", `--format=${FORMAT}`, "--end-of-options", rev], {
    okCodes: [0, 128],
  });
  if (r.code !== 0) {
    throw new GitGoodError("MISSING_COMMIT", `commit ${rev} is not in the source repository`, { commit: rev });
  }
  return parseCommit(r.stdout.toString("utf8").split("\0"));
}

/**
 * Reads several commits (full object ids) as `readCommit` does, in order, with one git process: `git log
 * --no-walk=unsorted -z` prints the twelve fields of each, each record ended by a NUL. When that cannot be
 * read so (a missing commit, a message holding a NUL), each is read alone, which names the missing one.
 */
export async function readCommits(repo: Repo, oids: readonly string[]): Promise<CommitInfo[]> {
  const unique = [...new Set(oids)];
  if (unique.length === 0) return [];
  if (unique.every((o) => /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(o))) {
    const r = await repo.run(["log", "--no-walk=unsorted", "-z", "--date=raw", `--format=${FORMAT}`, ...unique, "--"], {
      okCodes: [0, 128],
    });
    // Each record ends with a NUL: twelve fields per commit, then one empty string after the last.
    const f = r.stdout.toString("utf8").split("\0");
    if (r.code === 0 && f.length === unique.length * FIELDS + 1 && f.at(-1) === "") {
      const byOid = new Map<string, CommitInfo>();
      for (let i = 0; i < unique.length; i++) byOid.set(at(unique, i), parseCommit(f.slice(i * FIELDS, (i + 1) * FIELDS)));
      if (unique.every((o) => byOid.get(o)?.oid === o)) return oids.map((o) => byOid.get(o) as CommitInfo);
    }
  }
  const out: CommitInfo[] = [];
  for (const oid of oids) out.push(await readCommit(repo, oid));
  return out;
}

/** Fails with MISSING_COMMIT naming the first of `oids` the repository cannot read (a shallow or partial source). */
export async function requireCommits(repo: Repo, oids: readonly string[]): Promise<void> {
  const kinds = await objectKinds(repo, oids);
  const missing = oids.find((oid) => kinds.get(oid) !== "commit");
  if (missing !== undefined) {
    throw new GitGoodError("MISSING_COMMIT", `commit ${missing} is not in the source repository`, { commit: missing });
  }
}

/** The first-parent line of `count` commits ending at `tip`, oldest first. */
export async function firstParentLine(repo: Repo, tip: string, count: number): Promise<string[]> {
  const out = await repo.text(["rev-list", "--first-parent", `--max-count=${count}`, tip]);
  return out.split("\n").filter(Boolean).reverse();
}

/** The commits reachable from HEAD but not from `base`, oldest first. */
export async function commitsAfter(repo: Repo, base: string): Promise<string[]> {
  const out = await repo.text(["rev-list", "--reverse", `${base}..HEAD`]);
  return out.split("\n").filter(Boolean);
}
