import { GitGoodError } from "../errors.js";
import { objectKinds } from "./clone.js";
import type { Repo } from "./repo.js";
import { at } from "../util/at.js";

/** A commit's author or committer, as git records them. */
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

/** `name <email> seconds zone` of an author or committer line, as git splits it; null when malformed. */
function parseIdent(line: string): Person | null {
  const open = line.indexOf("<");
  const close = line.indexOf(">", open + 1);
  if (open === -1 || close === -1) return null;
  const date = /^ *(\d+) ([+-]\d{4})$/.exec(line.slice(close + 1));
  if (!date) return null;
  return { name: line.slice(0, open).replace(/\s+$/, ""), email: line.slice(open + 1, close), date: `${date[1]} ${date[2]}` };
}

/** A raw date (`seconds ±hhmm`) in strict ISO 8601 in its own zone, as `%cI` prints it. */
function isoOf(raw: string): string {
  const [seconds = "0", zone = "+0000"] = raw.split(" ");
  const sign = zone.startsWith("-") ? -1 : 1;
  const minutes = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5)));
  const local = new Date((Number(seconds) + minutes * 60) * 1000).toISOString().slice(0, 19);
  return `${local}${zone.slice(0, 3)}:${zone.slice(3, 5)}`;
}

/** The subject as `%s` makes it: the first paragraph after leading blank lines, its lines trimmed at the end and joined by spaces. */
function subjectOf(message: string): string {
  const lines = message.split("\n");
  let i = 0;
  while (i < lines.length && (lines[i] as string).trim() === "") i++;
  const out: string[] = [];
  for (; i < lines.length; i++) {
    const line = (lines[i] as string).replace(/\s+$/, "");
    if (line === "") break;
    out.push(line);
  }
  return out.join(" ");
}

/**
 * A commit object's bytes as `readCommit` reads it; null when git would show it differently from the raw
 * object (a message in another encoding, a malformed identity): such a commit is read by `git show`.
 */
function parseRawCommit(oid: string, raw: Buffer): CommitInfo | null {
  const text = raw.toString("utf8");
  const end = text.indexOf("\n\n");
  const head = (end === -1 ? text : text.slice(0, end)).split("\n");
  const body = end === -1 ? "" : text.slice(end + 2);
  let tree = "";
  const parents: string[] = [];
  let author: Person | null = null;
  let committer: Person | null = null;
  for (const line of head) {
    const sp = line.indexOf(" ");
    const key = line.slice(0, sp);
    const value = line.slice(sp + 1);
    if (key === "tree") tree = value;
    else if (key === "parent") parents.push(value);
    else if (key === "author") author = parseIdent(value);
    else if (key === "committer") committer = parseIdent(value);
    else if (key === "encoding" && !/^utf-?8$/i.test(value)) return null;
  }
  if (tree === "" || !author || !committer) return null;
  return {
    oid,
    tree,
    parents,
    author,
    committer,
    committedIso: isoOf(committer.date),
    subject: subjectOf(body),
    message: body.replace(/\n+$/, ""),
  };
}

/** A commit through the repository's long-lived reader; undefined when there is none or git must show it. */
async function readCommitObject(repo: Repo, rev: string): Promise<CommitInfo | null | undefined> {
  const reader = repo.reader;
  if (!reader) return undefined;
  const obj = await reader.read(`${rev}^{commit}`);
  if (!obj) return null;
  return parseRawCommit(obj.oid, obj.content) ?? undefined;
}

/** Reads one commit's metadata and message (trailing line breaks dropped, nothing else changed). */
export async function readCommit(repo: Repo, rev: string): Promise<CommitInfo> {
  const fast = await readCommitObject(repo, rev);
  if (fast === null) throw new GitGoodError("MISSING_COMMIT", `commit ${rev} is not in the source repository`, { commit: rev });
  if (fast) return fast;
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
  if (repo.reader) return Promise.all(oids.map((o) => readCommit(repo, o)));
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
  const reader = repo.reader;
  if (reader) {
    const line: string[] = [];
    let at: string | undefined = tip;
    while (at !== undefined && line.length < count) {
      const obj = await reader.read(`${at}^{commit}`);
      if (!obj) throw new GitGoodError("MISSING_COMMIT", `commit ${at} is not in the repository`, { commit: at });
      line.push(obj.oid);
      at = /^parent ([0-9a-f]+)$/m.exec(obj.content.toString("latin1", 0, headerEnd(obj.content)))?.[1];
    }
    return line.reverse();
  }
  const out = await repo.text(["rev-list", "--first-parent", `--max-count=${count}`, tip]);
  return out.split("\n").filter(Boolean).reverse();
}

/** Where a commit object's header ends (its first blank line). */
function headerEnd(raw: Buffer): number {
  const end = raw.indexOf("\n\n");
  return end === -1 ? raw.length : end;
}

/** The commits reachable from HEAD but not from `base`, oldest first. */
export async function commitsAfter(repo: Repo, base: string): Promise<string[]> {
  const line = await linearLineAfter(repo, base);
  if (line) return line;
  const out = await repo.text(["rev-list", "--reverse", `${base}..HEAD`]);
  return out.split("\n").filter(Boolean);
}

/** Commits walked at most by `linearLineAfter` before it leaves the question to `git rev-list`. */
const LINE_WALK_LIMIT = 200;

/**
 * The commits from HEAD back to `base` (exclusive), oldest first, walked through the repository's
 * long-lived reader, when HEAD reaches `base` along single parents only: then they are exactly what
 * `git rev-list base..HEAD` lists. Null when there is no reader, a merge or a root comes first, or the
 * line is long: the caller asks git.
 */
async function linearLineAfter(repo: Repo, base: string): Promise<string[] | null> {
  const reader = repo.reader;
  if (!reader) return null;
  const stop = (await reader.info(`${base}^{commit}`))?.oid;
  if (stop === undefined) return null;
  const line: string[] = [];
  let at = "HEAD";
  for (let n = 0; n <= LINE_WALK_LIMIT; n++) {
    const obj = await reader.read(`${at}^{commit}`);
    if (!obj) return null;
    if (obj.oid === stop) return line.reverse();
    const parents = [...obj.content.toString("latin1", 0, headerEnd(obj.content)).matchAll(/^parent ([0-9a-f]+)$/gm)];
    if (parents.length !== 1) return null;
    line.push(obj.oid);
    at = (parents[0] as RegExpMatchArray)[1] as string;
  }
  return null;
}
