import { lstatSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { commitContent, identLine, stripSpace } from "./commit-write.js";
import { foldInto, fromSubject, type FoldRun } from "./fixup-message.js";
import { sameSnapshot, snapshotGitDir } from "./git-dir-snapshot.js";
import { indexFileBytes, indexOrder } from "./index-write.js";
import { replaceThroughLock } from "./lock-file.js";
import { objectId, writeLooseObject, writesObjects } from "./object-write.js";
import { absent, knownSettings, readWholeTree, treeExtension, writeNewFile } from "./own-checkout.js";
import { appendLine, committerIdent, pausedWithoutGit, todoSubject } from "./own-rebase.js";
import type { Repo } from "./repo.js";

/*
 * The rest of an IR set-up's interactive rebase written without git: what `git rebase --continue` (git
 * 2.39) does from the paused state own-rebase.ts wrote, for a todo that needs no merge. That is one that
 * keeps the commits in their order and drops only commits after the last one kept, with `pick`, `fixup`,
 * `fixup -C`, and the `exec` of `git commit --amend` that
 * todo.ts writes after a squash or a reword: each step then applies a commit onto a HEAD whose tree is
 * the tree of the commit's parent, so its result is the commit's own tree. A pick whose parent is HEAD is
 * a fast-forward to the commit itself (HEAD's log says `rebase: fast-forward`); any other pick is a new
 * commit with the pick's author and message (from its subject on), the committer the set-up hands git,
 * and `rebase (pick): SUBJECT` in HEAD's log; a fold amends HEAD with the folded commit's tree, keeps
 * HEAD's author and parents, and takes the squash message git builds while a run of folds goes on
 * (fixup-message.ts) or, at the run's last fold, the message the run keeps (`rebase (fixup): FIRST
 * LINE`); an amend keeps HEAD's tree, parents and author with the message file's text as
 * `--cleanup=whitespace` leaves it (`commit (amend): FIRST LINE`, and the text in COMMIT_EDITMSG). At the
 * end the branch points at the last commit (its log gains `rebase (finish): BRANCH onto BASE` when it
 * moved), HEAD is back on it (`rebase (finish): returning to BRANCH`), the index is its tree's with every
 * entry skip-worktree and the whole cache of trees, AUTO_MERGE names the last tree where the todo's last
 * step merged, and `rebase-merge/` is gone. Git's `notes copy --for-rewrite` copies nothing here (no notes
 * setting, no notes environment), no hook runs (the sandbox's hooks path is the null device) and no
 * maintenance (`gc.auto` 0). Anything else goes to git: another todo, a state not byte for byte as
 * own-rebase.ts left it (a git of the agent's may have touched it), a file in the work tree, a git
 * directory not of SHA-1, a setting or environment these writers do not know, a chain commit with a
 * header git would carry into an amended commit or a message that is not UTF-8 or holds a NUL, an author
 * `git commit --amend` would write back tidied, a message file git would read otherwise or refuse, and a
 * fold git refuses (one that would leave its commit with its parent's tree), a `fixup -C` whose message
 * starts with `amend!`.
 */

const OID = /^[0-9a-f]{40}$/;
/** Environment that would make git write notes, another index or other reflog lines, or read objects from elsewhere. */
const OTHER_ENV = [
  "GIT_NOTES_REF",
  "GIT_NOTES_REWRITE_REF",
  "GIT_NOTES_REWRITE_MODE",
  "GIT_NOTES_DISPLAY_REF",
  "GIT_REFLOG_ACTION",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_REPLACE_REF_BASE",
  "GIT_NO_REPLACE_OBJECTS",
  "GIT_GRAFT_FILE",
  "GIT_SHALLOW_FILE",
  "GIT_INDEX_FILE",
];
/** Header fields of a commit that an amend does not carry over (besides tree, parent, author and committer): its signatures. */
const DROPPED_HEADERS = new Set(["gpgsig", "gpgsig-sha256"]);

type Command = "pick" | "fixup" | "fixup -C" | "drop";

/** A line of a todo gitgood writes: a command on a commit, or an `exec` that amends HEAD's message from a file of the messages folder. */
type Line = { command: Command; oid: string } | { command: "amend"; file: string };

/** The `exec` line todo.ts writes after a squash or reword, up to the message file's name. */
const AMEND_EXEC = 'exec git commit --amend --allow-empty --no-verify -q --cleanup=whitespace -F "$GITGOOD_MESSAGES/';

/** The lines of a todo gitgood writes, or null for any other line. */
function parseTodo(todo: string): Line[] | null {
  if (!todo.endsWith("\n")) return null;
  const lines: Line[] = [];
  for (const line of todo.slice(0, -1).split("\n")) {
    const m = /^(pick|fixup -C|fixup|drop) ([0-9a-f]{40})$/.exec(line);
    const file = line.startsWith(AMEND_EXEC) ? /^([A-Za-z0-9][A-Za-z0-9._-]*)"$/.exec(line.slice(AMEND_EXEC.length))?.[1] : undefined;
    if (m) lines.push({ command: m[1] as Command, oid: m[2] as string });
    else if (file !== undefined) lines.push({ command: "amend", file });
    else return null;
  }
  return lines;
}

/** A commit of the chain as the steps need it. */
interface ChainCommit {
  oid: string;
  tree: string;
  parent: string;
  author: string;
  message: string;
}

/** A chain commit's fields, or null for one this writer leaves to git (see the file's comment). */
function chainCommit(oid: string, content: Buffer): ChainCommit | null {
  // Its header is written again as text (an author, say): bytes that are not UTF-8 are left to git.
  const end = content.indexOf("\n\n");
  if (end === -1 || !Buffer.from(content.toString("utf8"), "utf8").equals(content)) return null;
  const fields = new Map<string, string[]>();
  let last: string | null = null;
  for (const line of content.toString("utf8", 0, end).split("\n")) {
    if (line.startsWith(" ") && last !== null) continue;
    const space = line.indexOf(" ");
    if (space <= 0) return null;
    last = line.slice(0, space);
    fields.set(last, [...(fields.get(last) ?? []), line.slice(space + 1)]);
  }
  const one = (name: string): string | undefined => (fields.get(name)?.length === 1 ? fields.get(name)?.[0] : undefined);
  const [tree, parent, author] = [one("tree"), one("parent"), one("author")];
  if (tree === undefined || parent === undefined || author === undefined || one("committer") === undefined) return null;
  if (![...fields.keys()].every((k) => ["tree", "parent", "author", "committer"].includes(k) || DROPPED_HEADERS.has(k))) return null;
  if (!OID.test(tree) || !OID.test(parent) || /[\0\n]/.test(author)) return null;
  const raw = content.subarray(end + 2);
  const message = raw.toString("utf8");
  if (message.includes("\0") || todoSubject(raw) === null) return null;
  return { oid, tree, parent, author, message };
}

/** The first line of `message` as a reflog keeps it (refs.c's copy_reflog_msg: runs of white space one space, the ends trimmed), after `action: `. */
function reflogLine(action: string, message: string): string {
  const first = message.split("\n", 1)[0] ?? "";
  return `${action}: ${first}`.replace(/^[ \t\n\r]+/, "").replace(/[ \t\n\r]+/g, " ").replace(/ $/, "");
}

/** A commit to be written: its fields, its content and its id. */
interface Made {
  oid: string;
  tree: string;
  parents: string[];
  author: string;
  message: string;
  content: Buffer;
}

/** A commit's fields with its content and id. */
function made1(fields: { tree: string; parents: string[]; author: string; committer: string; message: string }): Made {
  const content = commitContent(fields);
  return { ...fields, content, oid: objectId("commit", content) };
}

/**
 * The message `git commit --cleanup=whitespace -F FILE` commits from the file `file` of `dir`: its bytes
 * as stripspace leaves them. Null for a file git would read otherwise or refuse (not a regular file, not
 * UTF-8, a NUL, nothing left).
 */
function amendMessage(dir: string, file: string): string | null {
  const full = path.join(dir, file);
  try {
    if (!lstatSync(full).isFile()) return null;
    const raw = readFileSync(full);
    const text = raw.toString("utf8");
    if (!Buffer.from(text, "utf8").equals(raw) || text.includes("\0")) return null;
    const message = stripSpace(text);
    return message === "" ? null : message;
  } catch {
    return null;
  }
}

/** Whether `git commit --amend` writes the author line `author` back as it is (git formats the author it takes from HEAD again). */
function authorKept(author: string): boolean {
  const m = /^(.*) <([^<>]*)> (\d+ [+-]\d{4})$/.exec(author);
  return m !== null && identLine({ name: m[1] as string, email: m[2] as string, date: m[3] as string }) === author;
}

/** The parents of a commit made here or of the chain. */
function parentsOf(commit: Made | ChainCommit): string[] {
  return "parents" in commit ? commit.parents : [commit.parent];
}

/** What the steps of a todo leave: the commits to write, HEAD's log lines, the last commit and its tree, whether the last step merged, the last amend's message. */
interface Outcome {
  made: Made[];
  logLines: string[];
  head: string;
  tree: string;
  merged: boolean;
  edited: string | null;
}

/**
 * Works out every step of `lines` (the chain's commits `commits`, in order, each once, drops only after
 * the last kept one) from `base`, whose tree is `baseTree`, as git 2.39's sequencer does them; null where
 * a step is one git must do.
 */
function runSteps(lines: readonly Line[], commits: ReadonlyMap<string, ChainCommit>, base: string, baseTree: string, who: string, committer: string, messagesDir: string): Outcome | null {
  /** The tree of each commit HEAD has been at. */
  const treeOf = new Map<string, string>([[base, baseTree]]);
  let head = base;
  let headCommit: Made | ChainCommit | null = null;
  let run: FoldRun | null = null;
  // Git removes AUTO_MERGE as each step starts and a merge writes it: it is left where the todo's last step merged.
  let merged = false;
  let edited: string | null = null;
  const made: Made[] = [];
  const logLines: string[] = [];
  const advance = (next: Made, action: string): void => {
    made.push(next);
    treeOf.set(next.oid, next.tree);
    logLines.push(`${head} ${next.oid} ${who}\t${reflogLine(action, next.message)}\n`);
    head = next.oid;
    headCommit = next;
  };
  for (const [i, line] of lines.entries()) {
    if (line.command === "drop") {
      merged = false;
      continue;
    }
    const current = headCommit as Made | ChainCommit | null;
    const parents = current === null ? [] : parentsOf(current);
    if (line.command === "amend") {
      // `git commit --amend` run by an `exec`: HEAD's tree, parents and author, the file's message.
      const message = amendMessage(messagesDir, line.file);
      if (current === null || message === null || !authorKept(current.author)) return null;
      advance(made1({ tree: current.tree, parents, author: current.author, committer, message }), "commit (amend)");
      edited = message;
      run = null;
      merged = false;
      continue;
    }
    const commit = commits.get(line.oid);
    if (commit === undefined) return null;
    if (line.command === "pick") {
      run = null;
      merged = commit.parent !== head;
      if (!merged) {
        logLines.push(`${head} ${commit.oid} ${who}\trebase: fast-forward\n`);
        treeOf.set(commit.oid, commit.tree);
        head = commit.oid;
        headCommit = commit;
        continue;
      }
      advance(made1({ tree: commit.tree, parents: [head], author: commit.author, committer, message: fromSubject(commit.message) }), "rebase (pick)");
      continue;
    }
    if (current === null) return null;
    const next = lines[i + 1]?.command;
    const lastOfRun = next !== "fixup" && next !== "fixup -C";
    run = foldInto(run, fromSubject(current.message), fromSubject(commit.message), line.command === "fixup -C");
    // A fold that would leave its commit with its parent's tree is one git refuses (and stops at).
    const parentTree = treeOf.get(parents[0] ?? "");
    if (run === null || parentTree === undefined || parentTree === commit.tree) return null;
    advance(made1({ tree: commit.tree, parents, author: current.author, committer, message: lastOfRun ? run.last : run.squash }), "rebase (fixup)");
    if (lastOfRun) run = null;
    merged = true;
  }
  const last = headCommit as Made | ChainCommit | null;
  return last === null ? null : { made, logLines, head, tree: last.tree, merged, edited };
}

/**
 * Does what `git rebase --continue` does after `todo` replaced the todo of the paused rebase
 * own-rebase.ts wrote through `repo`, without git, where no step needs a merge (see the file's comment).
 * `env` is the committer environment the set-up hands git, `messagesDir` the folder the todo's `exec`
 * lines read messages from. Returns false, with nothing written, where git must do it.
 */
export async function continueWithoutGit(repo: Repo, todo: string, env: Record<string, string>, messagesDir: string): Promise<boolean> {
  const record = pausedWithoutGit(repo);
  const reader = repo.reader;
  const gitDir = repo.gitDir;
  if (record === undefined || reader === null || !repo.ownGitDir || repo.version.major !== 2 || repo.version.minor !== 39 || !writesObjects(gitDir)) return false;
  const settings = knownSettings(gitDir);
  if (OTHER_ENV.some((name) => process.env[name] !== undefined) || settings === null) return false;
  // Signing, rerere and automatic maintenance would each write something else (git's sandbox config turns them off).
  if (settings.get("gc.auto") !== "0" || ![undefined, "false"].includes(settings.get("commit.gpgsign")?.toLowerCase()) || ![undefined, "false"].includes(settings.get("rerere.enabled")?.toLowerCase())) return false;
  const who = committerIdent(env);
  const committer = who === null ? null : identLine({ name: env.GIT_COMMITTER_NAME ?? "", email: env.GIT_COMMITTER_EMAIL ?? "", date: env.GIT_COMMITTER_DATE ?? "" });
  const lines = parseTodo(todo);
  if (who === null || committer === null || lines === null) return false;
  const listed = lines.flatMap((l) => (l.command === "amend" ? [] : [l]));
  const firstDrop = lines.findIndex((l) => l.command === "drop");
  if (listed.length !== record.listed.length || !listed.every((l, i) => l.oid === record.listed[i]) || lines[0]?.command !== "pick") return false;
  if (firstDrop !== -1 && !lines.slice(firstDrop).every((l) => l.command === "drop")) return false;
  // An amend only right after a command on a commit, as todo.ts writes it.
  if (!lines.every((l, i) => l.command !== "amend" || (lines[i - 1]?.command !== "amend" && lines[i - 1]?.command !== "drop"))) return false;
  const current = snapshotGitDir(gitDir);
  try {
    if (current === null || !sameSnapshot(current, record.files) || readdirSync(repo.dir).length > 0) return false;
  } catch {
    return false;
  }

  const commits = new Map<string, ChainCommit>();
  let parent = record.base;
  for (const l of listed) {
    const object = await reader.read(l.oid);
    const commit = object?.type === "commit" && object.oid === l.oid ? chainCommit(l.oid, object.content) : null;
    if (commit === null || commit.parent !== parent) return false;
    commits.set(commit.oid, commit);
    parent = commit.oid;
  }
  const baseObject = await reader.read(record.base);
  const baseTree = baseObject?.type === "commit" && baseObject.oid === record.base ? /^tree ([0-9a-f]{40})\n/.exec(baseObject.content.toString("latin1"))?.[1] : undefined;
  if (baseTree === undefined) return false;
  // Every step worked out first: a step left to git leaves nothing written.
  const outcome = runSteps(lines, commits, record.base, baseTree, who, committer, messagesDir);
  if (outcome === null) return false;
  const { head, tree } = outcome;
  const whole = await readWholeTree(repo, tree);
  if (whole === null) return false;

  // From here on the sandbox is written; what fails now is a fault, not a case for git.
  const fail = (what: string): never => {
    throw new GitGoodError("INTERNAL", `the sandbox's ${what} is locked`);
  };
  for (const m of outcome.made) writeLooseObject(gitDir, "commit", m.content);
  const index = indexFileBytes([...whole.records].sort(indexOrder), [treeExtension(whole.cache)]);
  if (!replaceThroughLock(path.join(gitDir, "index"), index)) fail("index");
  if (outcome.merged && !replaceThroughLock(path.join(gitDir, "AUTO_MERGE"), `${tree}\n`)) fail("AUTO_MERGE");
  // `git commit` leaves the message it committed in COMMIT_EDITMSG.
  if (outcome.edited !== null) writeNewFile(path.join(gitDir, "COMMIT_EDITMSG"), outcome.edited);
  const refFile = path.join(gitDir, ...record.ref.split("/"));
  const headLog = path.join(gitDir, "logs", "HEAD");
  const branchLog = path.join(gitDir, "logs", ...record.ref.split("/"));
  if (head !== record.tip) {
    if (!replaceThroughLock(refFile, `${head}\n`)) fail(record.ref);
    appendLine(branchLog, `${record.tip} ${head} ${who}\trebase (finish): ${record.ref} onto ${record.base}\n`);
  }
  if (!replaceThroughLock(path.join(gitDir, "HEAD"), `ref: ${record.ref}\n`)) fail("HEAD");
  appendLine(headLog, `${outcome.logLines.join("")}${head} ${head} ${who}\trebase (finish): returning to ${record.ref}\n`);
  rmSync(path.join(gitDir, "rebase-merge"), { recursive: true });
  return absent(path.join(gitDir, "rebase-merge"));
}
