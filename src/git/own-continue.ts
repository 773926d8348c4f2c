import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { commitContent, identLine } from "./commit-write.js";
import { foldInto, fromSubject, type FoldRun } from "./fixup-message.js";
import { sameSnapshot, snapshotGitDir } from "./git-dir-snapshot.js";
import { indexFileBytes, indexOrder } from "./index-write.js";
import { replaceThroughLock } from "./lock-file.js";
import { objectId, writeLooseObject, writesObjects } from "./object-write.js";
import { absent, knownSettings, readWholeTree, treeExtension } from "./own-checkout.js";
import { appendLine, committerIdent, pausedWithoutGit, todoSubject } from "./own-rebase.js";
import type { Repo } from "./repo.js";

/*
 * The rest of an IR set-up's interactive rebase written without git: what `git rebase --continue` (git
 * 2.39) does from the paused state own-rebase.ts wrote, for a todo that needs no merge. That is one that
 * keeps the commits in their order and drops only commits after the last one kept, with `pick`, `fixup`
 * and at most one `fixup -C` as the first fold after a pick: each step then applies a commit onto a HEAD
 * whose tree is the tree of the commit's parent, so its result is the commit's own tree. A pick whose
 * parent is HEAD is a fast-forward to the commit itself (HEAD's log says `rebase: fast-forward`); any
 * other pick is a new commit with the pick's author and message (from its subject on), the committer the
 * set-up hands git, and `rebase (pick): SUBJECT` in HEAD's log; a fold amends HEAD with the folded
 * commit's tree, keeps HEAD's author and parents, and takes the squash message git builds while a run of
 * folds goes on (fixup-message.ts) or, at the run's last fold, the message the run keeps
 * (`rebase (fixup): FIRST LINE`). At the end the branch points at the last commit (its log gains
 * `rebase (finish): BRANCH onto BASE` when it moved), HEAD is back on it (`rebase (finish): returning to
 * BRANCH`), the index is its tree's with every entry skip-worktree and the whole cache of trees,
 * AUTO_MERGE names the last merge's tree where a step merged, and `rebase-merge/` is gone. Git's `notes
 * copy --for-rewrite` copies nothing here (no notes setting, no notes environment) and no hook runs (the
 * sandbox's hooks path is the null device). Anything else goes to git: another todo, a state not byte
 * for byte as own-rebase.ts left it (a git of the agent's may have touched it), a git directory not of
 * SHA-1, a setting or environment these writers do not know, a chain commit with a header git would carry
 * into an amended commit or a message that is not UTF-8 or holds a NUL.
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

/** A commit of the chain as the steps need it. */
interface ChainCommit {
  oid: string;
  tree: string;
  parent: string;
  author: string;
  message: string;
}

/** The steps of a todo gitgood writes (`COMMAND ID` lines), or null for any other line (an `exec`, say). */
function parseTodo(todo: string): { command: Command; oid: string }[] | null {
  if (!todo.endsWith("\n")) return null;
  const steps: { command: Command; oid: string }[] = [];
  for (const line of todo.slice(0, -1).split("\n")) {
    const m = /^(pick|fixup -C|fixup|drop) ([0-9a-f]{40})$/.exec(line);
    if (!m) return null;
    steps.push({ command: m[1] as Command, oid: m[2] as string });
  }
  return steps;
}

/** A chain commit's fields, or null for one this writer leaves to git (see the file's comment). */
function chainCommit(oid: string, content: Buffer): ChainCommit | null {
  const end = content.indexOf("\n\n");
  if (end === -1) return null;
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
  if (!Buffer.from(message, "utf8").equals(raw) || message.includes("\0") || todoSubject(raw) === null) return null;
  return { oid, tree, parent, author, message };
}

/** The first line of `message` as a reflog keeps it (refs.c's copy_reflog_msg: runs of white space one space, the ends trimmed), after `action: `. */
function reflogLine(action: string, message: string): string {
  const first = message.split("\n", 1)[0] ?? "";
  return `${action}: ${first}`.replace(/^[ \t\n\r]+/, "").replace(/[ \t\n\r]+/g, " ").replace(/ $/, "");
}

/** A commit to be written: its fields and its id once written. */
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
 * Does what `git rebase --continue` does after `todo` replaced the todo of the paused rebase
 * own-rebase.ts wrote through `repo`, without git, where no step needs a merge (see the file's comment).
 * `env` is the committer environment the set-up hands git. Returns false, with nothing written, where git
 * must do it.
 */
export async function continueWithoutGit(repo: Repo, todo: string, env: Record<string, string>): Promise<boolean> {
  const record = pausedWithoutGit(repo);
  const reader = repo.reader;
  const gitDir = repo.gitDir;
  if (record === undefined || reader === null || !repo.ownGitDir || repo.version.major !== 2 || repo.version.minor !== 39 || !writesObjects(gitDir)) return false;
  if (OTHER_ENV.some((name) => process.env[name] !== undefined) || knownSettings(gitDir) === null) return false;
  const who = committerIdent(env);
  const committer = who === null ? null : identLine({ name: env.GIT_COMMITTER_NAME ?? "", email: env.GIT_COMMITTER_EMAIL ?? "", date: env.GIT_COMMITTER_DATE ?? "" });
  const steps = parseTodo(todo);
  if (who === null || committer === null || steps === null || steps.length !== record.listed.length) return false;
  if (!steps.every((s, i) => s.oid === record.listed[i])) return false;
  const current = snapshotGitDir(gitDir);
  try {
    if (current === null || !sameSnapshot(current, record.files) || readdirSync(repo.dir).length > 0) return false;
  } catch {
    return false;
  }

  const commits: ChainCommit[] = [];
  for (const s of steps) {
    const object = await reader.read(s.oid);
    const commit = object?.type === "commit" && object.oid === s.oid ? chainCommit(s.oid, object.content) : null;
    if (commit === null) return false;
    commits.push(commit);
  }
  if (commits[0]?.parent !== record.base || !commits.every((c, i) => i === 0 || c.parent === commits[i - 1]?.oid)) return false;
  const kept = steps.filter((s) => s.command !== "drop").length;
  const baseObject = await reader.read(record.base);
  const baseTree = baseObject?.type === "commit" && baseObject.oid === record.base ? /^tree ([0-9a-f]{40})\n/.exec(baseObject.content.toString("latin1"))?.[1] : undefined;
  if (baseTree === undefined) return false;
  /** The tree of each commit HEAD has been at. */
  const headTree = new Map<string, string>([[record.base, baseTree]]);
  if (kept === 0 || !steps.slice(0, kept).every((s) => s.command !== "drop") || steps[0]?.command !== "pick") return false;

  // Every step worked out first: a step left to git leaves nothing written.
  let head = record.base;
  let headCommit: Made | ChainCommit | null = null;
  let run: FoldRun | null = null;
  // Git removes AUTO_MERGE as each step starts and a merge writes it: it is left where the todo's last step merged.
  let merged = false;
  const made: Made[] = [];
  const logLines: string[] = [];
  for (const [i, step] of steps.slice(0, kept).entries()) {
    const commit = commits[i] as ChainCommit;
    const lastOfRun = !(steps[i + 1]?.command === "fixup" || steps[i + 1]?.command === "fixup -C");
    let next: Made;
    let action: string;
    if (step.command === "pick") {
      run = null;
      if (commit.parent === head) {
        logLines.push(`${head} ${commit.oid} ${who}\trebase: fast-forward\n`);
        headTree.set(commit.oid, commit.tree);
        head = commit.oid;
        headCommit = commit;
        merged = false;
        continue;
      }
      const message = fromSubject(commit.message);
      next = made1({ tree: commit.tree, parents: [head], author: commit.author, committer, message });
      action = "rebase (pick)";
    } else {
      if (headCommit === null) return false;
      const parents = "parents" in headCommit ? headCommit.parents : [headCommit.parent];
      run = foldInto(run, fromSubject(headCommit.message), fromSubject(commit.message), step.command === "fixup -C");
      // A fold that would leave its commit with its parent's tree is one git refuses (and stops at).
      const parentTree = headTree.get(parents[0] ?? "");
      if (run === null || parentTree === undefined || parentTree === commit.tree) return false;
      next = made1({ tree: commit.tree, parents, author: headCommit.author, committer, message: lastOfRun ? run.last : run.squash });
      action = "rebase (fixup)";
      if (lastOfRun) run = null;
    }
    made.push(next);
    headTree.set(next.oid, next.tree);
    logLines.push(`${head} ${next.oid} ${who}\t${reflogLine(action, next.message)}\n`);
    head = next.oid;
    headCommit = next;
    merged = true;
  }
  if (kept < steps.length) merged = false;
  const finalTree = headCommit?.tree;
  if (finalTree === undefined) return false;
  const whole = await readWholeTree(repo, finalTree);
  if (whole === null) return false;

  // From here on the sandbox is written; what fails now is a fault, not a case for git.
  const fail = (what: string): never => {
    throw new GitGoodError("INTERNAL", `the sandbox's ${what} is locked`);
  };
  for (const m of made) writeLooseObject(gitDir, "commit", m.content);
  const index = indexFileBytes([...whole.records].sort(indexOrder), [treeExtension(whole.cache)]);
  if (!replaceThroughLock(path.join(gitDir, "index"), index)) fail("index");
  if (merged && !replaceThroughLock(path.join(gitDir, "AUTO_MERGE"), `${finalTree}\n`)) fail("AUTO_MERGE");
  const refFile = path.join(gitDir, ...record.ref.split("/"));
  const headLog = path.join(gitDir, "logs", "HEAD");
  const branchLog = path.join(gitDir, "logs", ...record.ref.split("/"));
  if (head !== record.tip) {
    if (!replaceThroughLock(refFile, `${head}\n`)) fail(record.ref);
    appendLine(branchLog, `${record.tip} ${head} ${who}\trebase (finish): ${record.ref} onto ${record.base}\n`);
  }
  if (!replaceThroughLock(path.join(gitDir, "HEAD"), `ref: ${record.ref}\n`)) fail("HEAD");
  appendLine(headLog, `${logLines.join("")}${head} ${head} ${who}\trebase (finish): returning to ${record.ref}\n`);
  rmSync(path.join(gitDir, "rebase-merge"), { recursive: true });
  return absent(path.join(gitDir, "rebase-merge"));
}
