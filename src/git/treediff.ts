import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { deal, interleave } from "../util/interleave.js";
import type { Slots } from "../util/slots.js";
import { privateTempDir } from "../util/tempdirs.js";
import { gitEnv, runGit } from "./process.js";
import type { Repo } from "./repo.js";

/** One file of a commit's diff against its first parent, as mining reads it. */
export interface FileChange {
  path: string;
  /** Status letter from the raw diff: A, M, D, T (type change). */
  status: string;
  /** File modes from the raw diff (`160000` is a submodule commit, not a blob of this repository). */
  oldMode: string;
  newMode: string;
  oldOid: string;
  newOid: string;
  /** Added plus deleted lines (`numstat` only); 0 for binary files. */
  lines: number;
}

export interface CommitDiff {
  commit: string;
  files: FileChange[];
  /** Git could not read what the diff needs (an object missing from a damaged copy): `files` is empty. */
  unreadable?: true;
}

/** The empty tree of each hash: a missing tree's stand-in. Git knows it without storing it. */
const EMPTY_TREE: Record<number, string> = {
  40: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
  64: "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
};
const TREE_MODE = "040000";
const UNREADABLE_TREE = /unable to read tree ([0-9a-f]{40}(?:[0-9a-f]{24})?)/;

/**
 * The trees a damaged copy lacks, as the diff passes find them, and a private git directory (never the
 * repository) that borrows the repository's objects and replaces each of those trees by the empty
 * tree. Diffs run there do not stop on a missing tree: they print its entry (`-t`), and a commit whose
 * diff shows a missing tree on either side is the one git would have stopped on. So each missing tree
 * costs one more process, not one per commit that needs it.
 */
export class MissingTrees {
  readonly trees = new Set<string>();
  private home: { dir: string; remove: () => void } | null = null;

  constructor(private readonly repo: Repo) {}

  /** Where a diff process runs: the repository itself, or the stand-in once a tree is known missing. */
  env(): NodeJS.ProcessEnv {
    const base = { GIT_NO_LAZY_FETCH: "1", GIT_NO_REPLACE_OBJECTS: undefined };
    return gitEnv(this.home ? { ...base, GIT_DIR: path.join(this.home.dir, "git") } : base);
  }

  /**
   * Takes `tree` as missing when it is not the root tree of `commit` or of its first parent (an empty
   * root would show as every file added or deleted, with no entry to tell): false when it is, or when
   * the tree was known already (then replacing did not help).
   */
  async add(tree: string, commit: string): Promise<boolean> {
    if (this.trees.has(tree)) return false;
    const empty = EMPTY_TREE[tree.length];
    if (empty === undefined) return false;
    const roots = await runGit(["log", "-2", "--first-parent", "--format=%T", commit], {
      cwd: this.repo.dir,
      env: { GIT_NO_LAZY_FETCH: "1" },
      okCodes: [0, 128],
    });
    if (roots.code !== 0 || roots.stdout.toString("latin1").split("\n").includes(tree)) return false;
    const git = this.standIn(tree.length === 64 ? "sha256" : "sha1");
    writeFileSync(path.join(git, "refs", "replace", tree), `${empty}\n`);
    this.trees.add(tree);
    return true;
  }

  /** Removes the stand-in git directory. */
  close(): void {
    this.home?.remove();
    this.home = null;
  }

  private standIn(format: string): string {
    if (!this.home) this.home = privateTempDir("gitgood-trees-");
    const git = path.join(this.home.dir, "git");
    if (existsSync(git)) return git;
    for (const sub of ["objects/info", "refs/replace", "refs/heads"]) mkdirSync(path.join(git, sub), { recursive: true });
    writeFileSync(path.join(git, "HEAD"), "ref: refs/heads/none\n");
    const extension = format === "sha256" ? "[extensions]\n\tobjectFormat = sha256\n" : "";
    writeFileSync(
      path.join(git, "config"),
      `[core]\n\trepositoryformatversion = ${extension ? 1 : 0}\n\tbare = true\n${extension}`,
    );
    writeFileSync(path.join(git, "objects", "info", "alternates"), `${this.repo.objectsDir}\n`);
    // A shallow clone's boundary commits have no parents to diff against: the stand-in must know them.
    const shallow = path.join(this.repo.gitDir, "shallow");
    if (existsSync(shallow)) copyFileSync(shallow, path.join(git, "shallow"));
    return git;
  }
}

/**
 * Diffs each commit against its first parent (the empty tree for a root) without rename detection,
 * with `git diff-tree --stdin`. Commits whose diff is empty produce no record. With `numstat: false`
 * only trees are read (no blobs). A commit git cannot diff gets an `unreadable` record and the others
 * are still diffed. Work is split over `jobs` processes (each waits for one of `slots` when given);
 * records come in batches, as git's output arrives, in no particular order.
 */
export async function* diffBatches(
  repo: Repo,
  commits: readonly string[],
  opts: { jobs: number; numstat: boolean; slots?: Slots; missing: MissingTrees },
): AsyncGenerator<CommitDiff[]> {
  // Small inputs are not worth a second process.
  const parts = Math.min(opts.jobs, Math.ceil(commits.length / 64));
  const { slots } = opts;
  yield* interleave(
    deal(commits, parts).map((c) => {
      const source = (): AsyncIterable<CommitDiff[]> => diffAll(repo, c, opts.numstat, opts.missing);
      return slots ? slots.gate(source) : source;
    }),
    opts.jobs,
  );
}

/**
 * Diffs `commits` in one process and, when git stops, goes on in another. Git prints every commit's
 * header (`--always`) in input order once it has read its trees, then its raw lines, then its numstat
 * lines once it has read its blobs; so the commit it stopped on is the last one whose header was
 * printed when that record is cut short (a missing blob), else the next one in the input (a missing
 * tree). A missing tree is replaced (MissingTrees) and the next process starts at that commit, which
 * then shows the tree; any other stop marks the commit unreadable and the next process starts after it.
 */
async function* diffAll(repo: Repo, commits: readonly string[], numstat: boolean, missing: MissingTrees): AsyncGenerator<CommitDiff[]> {
  let rest = commits;
  while (rest.length > 0) {
    const known = new Set(missing.trees);
    const parser = new DiffParser(numstat, known, rest);
    const stopped = yield* runDiff(repo, rest, parser, missing.env(), known.size > 0);
    if (stopped === null) return;
    const last = parser.current;
    const at = last === null ? -1 : rest.indexOf(last.commit);
    const whole = last !== null && (!numstat || parser.numstats >= parser.blobLines);
    if (last !== null && whole) {
      const done = parser.finish(last);
      if (done) yield [done];
    }
    // Nothing printed: git stopped on the first commit.
    const next = last === null ? 0 : whole ? at + 1 : at;
    const suspect = rest[next];
    if (suspect === undefined) return;
    const tree = UNREADABLE_TREE.exec(stopped)?.[1];
    if (tree !== undefined && !known.has(tree) && (missing.trees.has(tree) || (await missing.add(tree, suspect)))) {
      rest = rest.slice(next);
      continue;
    }
    yield [{ commit: suspect, files: [], unreadable: true }];
    rest = rest.slice(next + 1);
  }
}

const NUL = 0;

/** Runs one diff-tree process over `commits`; yields its records per chunk of output; returns git's stderr when it failed, else null. */
async function* runDiff(
  repo: Repo,
  commits: readonly string[],
  parser: DiffParser,
  env: NodeJS.ProcessEnv,
  showTrees: boolean,
): AsyncGenerator<CommitDiff[], string | null> {
  const args = ["diff-tree", "--stdin", "-z", "-r", "--root", "--no-renames", "--no-ext-diff", "--no-textconv", "--always", "--raw"];
  if (showTrees) args.push("-t");
  if (parser.numstat) args.push("--numstat");
  const child = spawn("git", args, { cwd: repo.dir, env, stdio: ["pipe", "pipe", "pipe"] });
  const err: Buffer[] = [];
  child.stderr.on("data", (b: Buffer) => err.push(b));
  child.stdin.on("error", () => {
    /* git stopped reading: its exit code tells why */
  });
  const exit = new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve(code));
  });
  exit.catch(() => undefined);
  child.stdin.end(commits.join("\n") + "\n");
  let finished = false;
  try {
    let rest: Buffer | null = null;
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      const buf: Buffer = rest ? Buffer.concat([rest, chunk]) : chunk;
      let start = 0;
      let idx: number;
      while ((idx = buf.indexOf(NUL, start)) !== -1) {
        parser.token(buf, start, idx);
        start = idx + 1;
      }
      rest = start < buf.length ? Buffer.from(buf.subarray(start)) : null;
      const done = parser.take();
      if (done.length > 0) yield done;
    }
    finished = true;
  } finally {
    if (!finished && child.exitCode === null) child.kill();
  }
  const code = await exit;
  if (code === 0) {
    const last = parser.current;
    const done = last ? parser.finish(last) : null;
    if (done) yield [done];
    return null;
  }
  return Buffer.concat(err).toString("utf8") || `git diff-tree failed: exit code ${code}`;
}

/** Mode strings by their value, so that a raw line's modes are not a new string each. */
const MODES = new Map<number, string>();

/** The six octal digits at `at` as a string, one instance per mode. */
function modeAt(buf: Buffer, at: number): string {
  let value = 0;
  for (let i = at; i < at + 6; i++) value = value * 8 + ((buf[i] ?? 0x30) - 0x30);
  let mode = MODES.get(value);
  if (mode === undefined) {
    mode = buf.toString("latin1", at, at + 6);
    MODES.set(value, mode);
  }
  return mode;
}

/** Reads `<digits>\t` or `-\t` at `at`: the count (-1 for `-`, a binary file) and where it ended; null when not one. */
function countAt(buf: Buffer, at: number, end: number): { count: number; next: number } | null {
  if (buf[at] === 0x2d /* "-" */) return buf[at + 1] === 0x09 ? { count: -1, next: at + 2 } : null;
  let count = 0;
  let i = at;
  for (; i < end; i++) {
    const c = buf[i] ?? 0;
    if (c === 0x09) break;
    if (c < 0x30 || c > 0x39) return null;
    count = count * 10 + (c - 0x30);
  }
  return i > at && i < end ? { count, next: i + 1 } : null;
}

/**
 * Reads diff-tree's `-z` tokens into records; a record is whole when the next header comes. Fields are
 * read from the bytes: a raw line's modes are shared strings and only its two ids and its path are new.
 */
class DiffParser {
  current: CommitDiff | null = null;
  /** Numstat lines read for `current`, and its raw lines of blobs (numstat prints one for each, trees none). */
  numstats = 0;
  blobLines = 0;
  private unreadable = false;
  private byPath = new Map<string, FileChange>();
  /** The raw line read before the path that completes it. */
  private meta: { oldMode: string; newMode: string; oldOid: string; newOid: string; status: string } | null = null;
  private done: CommitDiff[] = [];

  /** The input's next commit: git prints one header for each, in order. */
  private next = 0;

  constructor(
    readonly numstat: boolean,
    /** Trees replaced by the empty tree: a record showing one is unreadable. */
    private readonly missing: ReadonlySet<string>,
    /** The commits as given: a header names the record by the caller's string, not a copy kept beside it. */
    private readonly inputs: readonly string[],
  ) {}

  token(buf: Buffer, start: number, end: number): void {
    const meta = this.meta;
    if (meta !== null) {
      this.meta = null;
      if (meta.oldMode === TREE_MODE || meta.newMode === TREE_MODE) {
        if (this.missing.has(meta.oldOid) || this.missing.has(meta.newOid)) this.unreadable = true;
        return;
      }
      const change: FileChange = {
        path: buf.toString("utf8", start, end),
        status: meta.status,
        oldMode: meta.oldMode,
        newMode: meta.newMode,
        oldOid: meta.oldOid,
        newOid: meta.newOid,
        lines: 0,
      };
      this.blobLines++;
      this.current?.files.push(change);
      if (this.numstat) this.byPath.set(change.path, change);
      return;
    }
    if (end === start) return;
    if (buf[start] === 0x3a /* ":" */) {
      // `:<mode> <mode> <oid> <oid> <status>`: modes of six digits, ids of 40 or 64.
      const oldEnd = buf.indexOf(0x20, start + 15);
      const idLength = oldEnd - (start + 15);
      const newStart = oldEnd + 1;
      this.meta = {
        oldMode: modeAt(buf, start + 1),
        newMode: modeAt(buf, start + 8),
        oldOid: buf.toString("latin1", start + 15, oldEnd),
        newOid: buf.toString("latin1", newStart, newStart + idLength),
        status: newStart + idLength + 1 < end ? String.fromCharCode(buf[newStart + idLength + 1] ?? 0x4d) : "M",
      };
      return;
    }
    if (this.numstat) {
      const added = countAt(buf, start, end);
      const deleted = added ? countAt(buf, added.next, end) : null;
      if (added && deleted) {
        this.numstats++;
        const change = this.byPath.get(buf.toString("utf8", deleted.next, end));
        if (change && added.count >= 0 && deleted.count >= 0) change.lines = added.count + deleted.count;
        return;
      }
    }
    // A header: the record before it is whole; one with an empty diff (printed for `--always`) is not a change.
    if (this.current) {
      const done = this.finish(this.current);
      if (done) this.done.push(done);
    }
    const header = buf.toString("latin1", start, end);
    const given = this.inputs[this.next];
    if (given === header) this.next++;
    this.current = { commit: given === header ? given : header, files: [] };
    this.numstats = 0;
    this.blobLines = 0;
    this.unreadable = false;
    if (this.numstat) this.byPath = new Map();
  }

  /** The whole records read since the last call. */
  take(): CommitDiff[] {
    const out = this.done;
    this.done = [];
    return out;
  }

  /** What `record` amounts to once whole: unreadable when it showed a missing tree, nothing when empty. */
  finish(record: CommitDiff): CommitDiff | null {
    if (record === this.current) this.current = null;
    if (this.unreadable) return { commit: record.commit, files: [], unreadable: true };
    return record.files.length > 0 ? record : null;
  }
}
