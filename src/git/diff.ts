import { GitGoodError } from "../errors.js";
import { DiffTreeReader } from "./diff-reader.js";
import { noAttributes } from "./no-attributes.js";
import { gitQuotedPath, isUtf8Path, showPath } from "./paths.js";
import { LITERAL_PATHS, type Repo } from "./repo.js";
import { at } from "../util/at.js";

/** Options for every diff shown to an agent or recorded in a final state: the same bytes on every machine. */
const DIFF_OPTIONS: readonly string[] = [
  "--no-color",
  "--no-ext-diff",
  "--no-textconv",
  "--no-renames",
  "-U3",
  "--src-prefix=a/",
  "--dst-prefix=b/",
];

/** Options of a patch `git apply` can take back byte for byte (binary files included). */
const PATCH_OPTIONS: readonly string[] = [...DIFF_OPTIONS, "--binary", "--full-index"];

/**
 * Patches of commits already read, per repository handle: a commit's patch is fixed by its id (the commit
 * and its first parent never change), so a patch asked for again (an IR agent's `show_changes_in` after the
 * context showed every commit's) starts no process. At most PATCH_MEMO_CHARS per handle are kept.
 */
const patchMemo = new WeakMap<Repo, { byOid: Map<string, string>; chars: number }>();
const PATCH_MEMO_CHARS = 8 * 1024 * 1024;

function rememberPatch(repo: Repo, oid: string, patch: string): void {
  let memo = patchMemo.get(repo);
  if (!memo) patchMemo.set(repo, (memo = { byOid: new Map(), chars: 0 }));
  if (memo.byOid.has(oid) || memo.chars + patch.length > PATCH_MEMO_CHARS) return;
  memo.byOid.set(oid, patch);
  memo.chars += patch.length;
}

const FULL_OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** Options of the `diff-tree --stdin` that reads commits' patches (`commitDiffs`). */
const COMMIT_PATCH_OPTIONS: readonly string[] = ["--always", "-p", "--root", ...DIFF_OPTIONS];

/**
 * The handle's long-lived `diff-tree --stdin` (after `Repo.keepReader`, like its reader: a source's for its
 * run, a sandbox's for its life, closed with the handle), or null: without one, or once it has failed. It
 * reads no attributes file of the project, a work tree or an index (no-attributes.ts), so what it answers
 * never goes stale when an agent writes one.
 */
function patchReader(repo: Repo): DiffTreeReader | null {
  const start = (_cwd: string, env: Record<string, string>): DiffTreeReader => {
    const plain = noAttributes(repo.gitDir, env);
    return new DiffTreeReader(COMMIT_PATCH_OPTIONS, plain.cwd, plain.env);
  };
  const reader = repo.helper("diff-tree", start);
  return reader && !reader.failed ? reader : null;
}

/** The patch a commit introduces, against its first parent. */
export async function commitDiff(repo: Repo, oid: string): Promise<string> {
  const known = patchMemo.get(repo)?.byOid.get(oid);
  if (known !== undefined) return known;
  if (FULL_OID.test(oid)) return at(await commitDiffs(repo, [oid]), 0);
  return oneCommitDiff(repo, oid);
}

/** `commitDiff` with a process of its own. */
async function oneCommitDiff(repo: Repo, oid: string): Promise<string> {
  const patch = await repo.text(["diff-tree", "-p", "--root", "--no-commit-id", ...DIFF_OPTIONS, oid], { noAttributes: true });
  if (FULL_OID.test(oid)) rememberPatch(repo, oid, patch);
  return patch;
}

/** What `diff-tree --stdin` prints for the commits `oids`: from the handle's long-lived one, else from one of their own. */
async function stdinDiffs(repo: Repo, oids: readonly string[]): Promise<string> {
  const reader = patchReader(repo);
  if (reader) {
    try {
      return (await reader.ask(oids)).toString("utf8");
    } catch {
      // It stopped (the error is the one-shot's to tell, if git fails again).
    }
  }
  return repo.text(["diff-tree", "--stdin", ...COMMIT_PATCH_OPTIONS], { input: oids.map((o) => `${o}\n`).join(""), noAttributes: true });
}

/**
 * The patches of several commits (full object ids), each as `commitDiff` makes it, with one `git diff-tree
 * --stdin` (the handle's long-lived one when it keeps one). With `--always` each commit's patch follows a
 * line holding its id; no patch line is a bare object id (each starts with a space, a sign, `@`, `\\` or a
 * header word), so the ids cut the output. A commit git cannot show is asked again alone, which fails
 * with git's own error.
 */
export async function commitDiffs(repo: Repo, oids: readonly string[]): Promise<string[]> {
  const memo = patchMemo.get(repo)?.byOid;
  const unique = [...new Set(oids)].filter((o) => !memo?.has(o));
  if (unique.length === 0) return oids.map((o) => memo?.get(o) as string);
  const eachAlone = (): Promise<string[]> => Promise.all(oids.map((o) => memo?.get(o) ?? oneCommitDiff(repo, o)));
  if (!unique.every((o) => FULL_OID.test(o))) return eachAlone();
  const out = await stdinDiffs(repo, unique);
  const byOid = new Map<string, string>();
  let offset = 0;
  for (let i = 0; i < unique.length; i++) {
    const oid = at(unique, i);
    const head = `${oid}\n`;
    if (!out.startsWith(head, offset)) return eachAlone();
    const start = offset + head.length;
    const next = unique[i + 1];
    const end = next === undefined ? out.length : out.indexOf(`\n${next}\n`, start - 1) + 1;
    if (end <= 0) return eachAlone();
    byOid.set(oid, out.slice(start, end));
    offset = end;
  }
  for (const [oid, patch] of byOid) rememberPatch(repo, oid, patch);
  return oids.map((o) => byOid.get(o) ?? (memo?.get(o) as string));
}

/**
 * One file's diff for an agent: the work tree against `against`, or without it against the index
 * (for an unmerged path that is git's combined diff against both sides). The path is literal (no
 * pathspec magic); a Buffer is its bytes as git stores them. Bytes that are not UTF-8 cannot be put on
 * git's command line: then the diff of the longest directory above the file that can is taken, and
 * the file's own section picked out of it by its header (written with `core.quotePath=true`).
 */
export async function fileDiff(repo: Repo, file: string | Buffer, against?: string): Promise<string> {
  const bytes = typeof file === "string" ? Buffer.from(file, "utf8") : file;
  const rev = against === undefined ? [] : [against];
  if (isUtf8Path(bytes)) {
    return repo.text(["diff", ...DIFF_OPTIONS, ...rev, "--", bytes.toString("utf8")], { env: LITERAL_PATHS });
  }
  const dirs = bytes.toString("latin1").split("/").slice(0, -1);
  const firstBad = dirs.findIndex((d) => !isUtf8Path(Buffer.from(d, "latin1")));
  const above = (firstBad === -1 ? dirs : dirs.slice(0, firstBad)).join("/");
  const scope = above === "" ? [] : ["--", Buffer.from(above, "latin1").toString("utf8")];
  const out = await repo.text(["-c", "core.quotePath=true", "diff", ...DIFF_OPTIONS, ...rev, ...scope], { env: LITERAL_PATHS });
  const headers = new Set([
    `diff --git ${gitQuotedPath(Buffer.concat([Buffer.from("a/"), bytes]))} ${gitQuotedPath(Buffer.concat([Buffer.from("b/"), bytes]))}`,
    `diff --cc ${gitQuotedPath(bytes)}`,
  ]);
  return out
    .split(/^(?=diff --(?:git|cc) )/m)
    .filter((section) => headers.has(section.slice(0, section.indexOf("\n"))))
    .join("");
}

export interface PatchEntry {
  /** Git's status letter: A (added), D (deleted), M (modified), T (type changed). */
  status: string;
  /** The path in the notation of paths.ts (its bytes exactly, whatever the encoding). */
  path: string;
}

/** The files `patchBetween` lists, in the same order, with their status. */
export async function patchEntries(repo: Repo, from: string, to: string): Promise<PatchEntry[]> {
  const out = (await repo.run(["diff", "--name-status", "-z", ...PATCH_OPTIONS, from, to])).stdout;
  const fields: Buffer[] = [];
  for (let at = 0; at < out.length; ) {
    const end = out.indexOf(0, at);
    fields.push(out.subarray(at, end === -1 ? out.length : end));
    at = end === -1 ? out.length : end + 1;
  }
  const entries: PatchEntry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    entries.push({ status: at(fields, i).toString("latin1"), path: showPath(at(fields, i + 1)) });
  }
  return entries;
}

/**
 * The patch from one revision to another, binary files included, as a latin1 string (one character
 * per byte, so taking it apart and applying pieces of it is byte-exact whatever the encoding).
 */
export async function patchBetween(repo: Repo, from: string, to: string): Promise<string> {
  return (await repo.run(["diff", ...PATCH_OPTIONS, from, to])).stdout.toString("latin1");
}

/**
 * `patchEntries` and `patchBetween` of the same two revisions from one `git diff --raw -p -z`: the raw
 * records (`:<modes> <ids> <status>` NUL path NUL) come first, then one more NUL, then the patch, byte for
 * byte what `patchBetween` prints.
 */
export async function patchWithEntries(repo: Repo, from: string, to: string): Promise<{ entries: PatchEntry[]; patch: string }> {
  const out = (await repo.run(["diff", "--raw", "-p", "-z", ...PATCH_OPTIONS, from, to])).stdout;
  const entries: PatchEntry[] = [];
  let at = 0;
  while (at < out.length && out[at] === 0x3a) {
    const metaEnd = out.indexOf(0, at);
    const pathEnd = metaEnd === -1 ? -1 : out.indexOf(0, metaEnd + 1);
    if (pathEnd === -1) throw new GitGoodError("GIT_FAILED", "git diff --raw printed a record without its path");
    const meta = out.toString("latin1", at + 1, metaEnd).split(" ");
    entries.push({ status: (meta[4] ?? "M").charAt(0), path: showPath(out.subarray(metaEnd + 1, pathEnd)) });
    at = pathEnd + 1;
  }
  if (at < out.length && out[at] === 0) at++;
  return { entries, patch: out.toString("latin1", at) };
}

/**
 * A plain diff for people: from a revision to another revision, or to the work tree when `to` is
 * not given; limited to `paths` (taken literally) when they are given.
 */
export async function plainDiff(repo: Repo, from: string, opts: { to?: string; paths?: readonly string[] } = {}): Promise<string> {
  const to = opts.to === undefined ? [] : [opts.to];
  const paths = opts.paths === undefined ? [] : ["--", ...opts.paths];
  return repo.text(["diff", "--no-color", "--no-ext-diff", from, ...to, ...paths], { env: LITERAL_PATHS });
}
