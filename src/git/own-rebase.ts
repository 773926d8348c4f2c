import { closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, writeSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { headBranch, identLine } from "./commit-write.js";
import { indexFileBytes, indexOrder } from "./index-write.js";
import { replaceThroughLock } from "./lock-file.js";
import { writesObjects } from "./object-write.js";
import { absent, exactPatterns, isRealDir, knownSettings, readWholeTree, treeExtension, writeNewFile, writtenCheckout } from "./own-checkout.js";
import type { Repo } from "./repo.js";
import { snapshotGitDir } from "./git-dir-snapshot.js";
import { attributesKeepBytes } from "./stored-bytes.js";

/*
 * The paused interactive rebase of an IR set-up (`git rebase -i --no-autosquash --empty=keep
 * --no-update-refs BASE` whose sequence editor puts `break` first, so that git stops before the first
 * step) written without git, on a tool-only sandbox whose first checkout own-checkout.ts has just
 * written. Git 2.39 then leaves: `rebase-merge/` with the todo (the picks with full ids, the `break`
 * taken off), `done` (`break`), `msgnum` 1, `end` (the picks and the break), `head-name`, `onto`,
 * `orig-head`, the empty `interactive`, `keep_redundant_commits` and `no-reschedule-failed-exec`, and
 * the todo as first written (`git-rebase-todo.backup`: git adds a comment of its own there, which is
 * not written here: git reads only the commands of that file, to find commits dropped from the todo);
 * HEAD detached at the base, ORIG_HEAD at the tip, HEAD's reflog line `rebase (start): checkout BASE`
 * (the committer of the chain's tip and its date, which the set-up hands git in the environment), and
 * the index of the base's tree, every entry skip-worktree (no file of the work tree is read or written,
 * so a project's attributes change nothing; the git directory's own attributes file may only be the one
 * stored-bytes.ts writes). Every other byte is git's. Anything else goes to git: another git than 2.39
 * (whose state files could differ), a sandbox not exactly as the first checkout left it, a setting or
 * environment own-checkout.ts does not know, SHA-256, a commit of the chain that is a merge, empty (git
 * would handle it apart), grafted away by the shallow store or carrying an `encoding`, a subject git's
 * todo would not hold as it is (empty, a control character but the tab, not UTF-8), and a tree
 * own-checkout.ts leaves to git.
 */

const OID = /^[0-9a-f]{40}$/;
/** The most commits a chain may have for this writer (a longer one goes to git). */
const MOST_COMMITS = 1000;
/** The environment the set-up hands `git rebase -i`: the committer's name, email and date, nothing else. */
const COMMITTER_ENV = ["GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE"];
/** Environment that would make git read objects from elsewhere (and so abbreviate ids otherwise). */
const OBJECT_ENV = ["GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_REPLACE_REF_BASE", "GIT_NO_REPLACE_OBJECTS", "GIT_GRAFT_FILE", "GIT_SHALLOW_FILE"];
/** Files of the git directory that tell of an operation in progress or change how history is read: with any of them git decides. */
const NOT_THERE = ["rebase-merge", "rebase-apply", "ORIG_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD", "AUTO_MERGE", "sequencer", "packed-refs", "info/grafts", "index.lock", "HEAD.lock"];

/** What `pausedRebaseWithoutGit` wrote through a handle: the rebase's base, tip and branch, the commits listed, and every file of the git directory but the objects as it left them. */
export interface PausedRecord {
  base: string;
  tip: string;
  ref: string;
  listed: readonly string[];
  files: ReadonlyMap<string, Buffer>;
}

const paused = new WeakMap<Repo, PausedRecord>();

/** The paused rebase this writer last wrote through `repo` (undefined where git made it). */
export function pausedWithoutGit(repo: Repo): PausedRecord | undefined {
  return paused.get(repo);
}

/** A commit of the chain as the todo lists it. */
interface Listed {
  oid: string;
  subject: string;
}

/** White space as git's ctype has it (space, tab, line feed, carriage return). */
const GIT_SPACE = /[ \t\n\r]+$/;

/**
 * What git's todo holds after `pick ID ` for a commit message: what `%s` gives (pretty.c's
 * format_subject: blank lines at the start skipped, then the lines of the first paragraph, trailing
 * white space cut, joined by one space), the spaces and tabs at its start cut as the todo's parser cuts
 * them. Null where a todo line would not hold it as it is (nothing left, a control character but the
 * tab, not UTF-8).
 */
export function todoSubject(message: Buffer): string | null {
  const text = message.toString("utf8");
  if (!Buffer.from(text, "utf8").equals(message)) return null;
  const lines = text.split("\n").map((l) => l.replace(GIT_SPACE, ""));
  let at = 0;
  while (at < lines.length && lines[at] === "") at++;
  const paragraph: string[] = [];
  for (; at < lines.length && lines[at] !== ""; at++) paragraph.push(lines[at] as string);
  const subject = paragraph.join(" ").replace(/^[ \t]+/, "");
  const control = (c: number): boolean => (c < 0x20 && c !== 0x09) || c === 0x7f;
  return subject !== "" && ![...subject].some((ch) => control(ch.charCodeAt(0))) ? subject : null;
}

/** A commit's header fields and message, or null when it is not a plain commit object. */
function parseCommit(content: Buffer): { tree: string; parents: string[]; encoding: boolean; message: Buffer } | null {
  const end = content.indexOf("\n\n");
  if (end === -1) return null;
  const header = content.toString("latin1", 0, end).split("\n");
  const tree = /^tree ([0-9a-f]{40})$/.exec(header[0] ?? "")?.[1];
  if (tree === undefined) return null;
  const parents = header.flatMap((l) => /^parent ([0-9a-f]{40})$/.exec(l)?.[1] ?? []);
  return { tree, parents, encoding: header.some((l) => l.startsWith("encoding ")), message: content.subarray(end + 2) };
}

/** The commits listed in the shallow file of `gitDir` (none without one); null when it cannot be read as git writes it. */
function shallowCommits(gitDir: string): Set<string> | null {
  const file = path.join(gitDir, "shallow");
  if (absent(file)) return new Set();
  try {
    if (!lstatSync(file).isFile()) return null;
    const lines = readFileSync(file, "latin1").split("\n");
    if (lines.pop() !== "" || !lines.every((l) => OID.test(l))) return null;
    return new Set(lines);
  } catch {
    return null;
  }
}

/** The reflog identity (`name <email> seconds zone`) of the committer the set-up hands git, or null when git would take it otherwise. */
export function committerIdent(env: Record<string, string>): string | null {
  if (Object.keys(env).some((k) => !COMMITTER_ENV.includes(k))) return null;
  const [name, email, date] = COMMITTER_ENV.map((k) => env[k]);
  if (name === undefined || email === undefined || date === undefined) return null;
  return identLine({ name, email, date });
}

/** Appends `line` to the file `file` (which must be a regular file), never through a link. */
export function appendLine(file: string, line: string): void {
  const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
  try {
    writeSync(fd, Buffer.from(line));
  } finally {
    closeSync(fd);
  }
}

/**
 * The chain from `base` (exclusive) to `tip`, oldest first, as git's todo lists it; null where git must
 * make the list (see the file's comment).
 */
async function chainToList(repo: Repo, base: string, tip: string): Promise<{ listed: Listed[]; baseTree: string } | null> {
  const reader = repo.reader;
  const shallow = shallowCommits(repo.gitDir);
  if (reader === null || shallow === null) return null;
  const listed: Listed[] = [];
  let at = tip;
  let tree: string | null = null;
  for (;;) {
    const object = await reader.read(at);
    const commit = object?.type === "commit" && object.oid === at ? parseCommit(object.content) : null;
    if (commit === null) return null;
    // The commit below must change something: an empty commit of the chain is one git may drop.
    if (tree !== null && commit.tree === tree) return null;
    if (at === base) return { listed: listed.reverse(), baseTree: commit.tree };
    const subject = todoSubject(commit.message);
    const parent = commit.parents[0];
    if (commit.parents.length !== 1 || parent === undefined || commit.encoding || subject === null || shallow.has(at) || listed.length >= MOST_COMMITS) return null;
    listed.push({ oid: at, subject });
    tree = commit.tree;
    at = parent;
  }
}

/** Whether the only ref of `gitDir` is `ref` (no tag, no other branch, no replacement, no note). */
function onlyRef(gitDir: string, ref: string): boolean {
  const found: string[] = [];
  const walk = (rel: string): boolean => {
    for (const entry of readdirSync(path.join(gitDir, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!walk(child)) return false;
      } else if (entry.isFile()) {
        found.push(child);
      } else {
        return false;
      }
    }
    return true;
  };
  try {
    return walk("refs") && found.length === 1 && found[0] === ref;
  } catch {
    return false;
  }
}

/**
 * Does what `git rebase -i --no-autosquash --empty=keep --no-update-refs BASE` with a sequence editor
 * that puts `break` first does right after `checkoutWithoutGit` made the sandbox's first checkout at the
 * chain's tip, without git (see the file's comment). Returns the commits the todo lists, oldest first,
 * or null, with nothing written, where git must do it.
 */
export async function pausedRebaseWithoutGit(repo: Repo, base: string, env: Record<string, string>): Promise<string[] | null> {
  paused.delete(repo);
  const gitDir = repo.gitDir;
  const reader = repo.reader;
  const checkout = writtenCheckout(repo);
  const ref = headBranch(gitDir);
  if (!repo.ownGitDir || reader === null || checkout === undefined || ref === null || !OID.test(base) || base === checkout.commit) return null;
  if (repo.version.major !== 2 || repo.version.minor !== 39 || !writesObjects(gitDir)) return null;
  if (OBJECT_ENV.some((name) => process.env[name] !== undefined) || knownSettings(gitDir) === null || exactPatterns(gitDir)?.size !== 0 || !attributesKeepBytes(gitDir)) return null;
  const who = committerIdent(env);
  if (who === null || !NOT_THERE.every((name) => absent(path.join(gitDir, name))) || !onlyRef(gitDir, ref)) return null;
  const tip = checkout.commit;
  const headLog = path.join(gitDir, "logs", "HEAD");
  try {
    if (readFileSync(path.join(gitDir, ...ref.split("/")), "latin1") !== `${tip}\n` || !lstatSync(headLog).isFile()) return null;
    if (!lstatSync(path.join(gitDir, "index")).isFile() || !readFileSync(path.join(gitDir, "index")).equals(checkout.index)) return null;
    if (!isRealDir(repo.dir) || readdirSync(repo.dir).length > 0) return null;
  } catch {
    return null;
  }
  const chain = await chainToList(repo, base, tip);
  if (chain === null || chain.listed.length === 0) return null;
  const whole = await readWholeTree(repo, chain.baseTree);
  if (whole === null) return null;

  const picks = chain.listed.map((c) => `pick ${c.oid} ${c.subject}\n`).join("");
  const n = chain.listed.length;
  const files: [string, string][] = [
    ["head-name", `${ref}\n`],
    ["onto", `${base}\n`],
    ["orig-head", `${tip}\n`],
    ["interactive", ""],
    ["keep_redundant_commits", ""],
    ["no-reschedule-failed-exec", ""],
    ["git-rebase-todo.backup", picks],
    ["git-rebase-todo", picks],
    ["done", "break\n"],
    ["msgnum", "1\n"],
    ["end", `${n + 1}\n`],
  ];
  const stateDir = path.join(gitDir, "rebase-merge");
  try {
    // Made here and nowhere else: a folder (or a link) already there makes this fail and leaves it to git.
    mkdirSync(stateDir);
  } catch {
    return null;
  }
  // From here on the sandbox is written; what fails now is a fault, not a case for git.
  for (const [name, text] of files) writeNewFile(path.join(stateDir, name), text);
  const index = indexFileBytes([...whole.records].sort(indexOrder), [treeExtension(whole.cache)]);
  if (!replaceThroughLock(path.join(gitDir, "index"), index)) throw new GitGoodError("INTERNAL", "the sandbox's index is locked");
  if (!replaceThroughLock(path.join(gitDir, "ORIG_HEAD"), `${tip}\n`)) throw new GitGoodError("INTERNAL", "the sandbox's ORIG_HEAD is locked");
  if (!replaceThroughLock(path.join(gitDir, "HEAD"), `${base}\n`)) throw new GitGoodError("INTERNAL", "the sandbox's HEAD is locked");
  appendLine(headLog, `${tip} ${base} ${who}\trebase (start): checkout ${base}\n`);
  const listed = chain.listed.map((c) => c.oid);
  const left = snapshotGitDir(gitDir);
  if (left === null) paused.delete(repo);
  else paused.set(repo, { base, tip, ref, listed, files: left });
  return listed;
}
