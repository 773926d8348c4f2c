import { appendFileSync, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Person } from "./commits.js";
import { replaceThroughLock } from "./lock-file.js";
import { writeLooseObject } from "./object-write.js";

/** Bytes git strips from both ends of a name or email (ident.c's `crud`: git 2.39 strips a dot too), and those it drops anywhere. */
const CRUD_END = /^[\0-\x20.,:;<>"\\']|[\0-\x20.,:;<>"\\']$/;
const DROPPED = /[\n<>]/;
/** A raw date git reads back as the same seconds and zone: 9 or 10 digits (git takes fewer as something else) and a valid zone. */
const RAW_DATE = /^([1-9]\d{8,9}) [+-](?:[01]\d|2[0-3])[0-5]\d$/;

/**
 * The `name <email> seconds zone` git writes for `person` given as GIT_AUTHOR_* or GIT_COMMITTER_*,
 * or null when git would change or refuse it (crud at an end, a delimiter inside, an empty part, a date
 * git parses otherwise): such an identity is left to git.
 */
export function identLine(person: Person): string | null {
  for (const part of [person.name, person.email]) {
    if (part === "" || CRUD_END.test(part) || DROPPED.test(part)) return null;
  }
  const date = RAW_DATE.exec(person.date);
  if (!date || Number(date[1]) > 0xffffffff) return null;
  return `${person.name} <${person.email}> ${person.date}`;
}

/**
 * A commit message as `git commit --cleanup=whitespace` leaves it (strbuf_stripspace without comments):
 * trailing spaces, tabs and carriage returns cut from each line, runs of empty lines made one, empty
 * lines at the start and end dropped, every line ended by a newline.
 */
export function stripSpace(message: string): string {
  const out: string[] = [];
  let empties = 0;
  const lines = message.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (const line of lines) {
    const kept = line.replace(/[ \t\r]+$/, "");
    if (kept === "") {
      empties++;
      continue;
    }
    if (empties > 0 && out.length > 0) out.push("");
    empties = 0;
    out.push(kept);
  }
  return out.map((l) => `${l}\n`).join("");
}

interface CommitFields {
  tree: string;
  parents: readonly string[];
  author: string;
  committer: string;
  message: string;
}

/** The content of the commit object of `fields` (git's header order, no encoding header: the message is UTF-8). */
export function commitContent(fields: CommitFields): Buffer {
  const header = [`tree ${fields.tree}`, ...fields.parents.map((p) => `parent ${p}`), `author ${fields.author}`, `committer ${fields.committer}`];
  return Buffer.from(`${header.join("\n")}\n\n${fields.message}`, "utf8");
}

/** Writes the commit object of `fields` and returns its id. */
export function writeCommitObject(gitDir: string, fields: CommitFields): string {
  return writeLooseObject(gitDir, "commit", commitContent(fields));
}

/** A branch name gitgood writes as a loose ref file itself: plain, with no part git would refuse. */
const PLAIN_BRANCH = /^refs\/heads\/(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** The branch HEAD of `gitDir` is on, when it is one gitgood moves itself; null for a detached HEAD or any other form. */
export function headBranch(gitDir: string): string | null {
  let head: string;
  try {
    head = readFileSync(path.join(gitDir, "HEAD"), "latin1");
  } catch {
    return null;
  }
  const m = /^ref: (\S+)\n$/.exec(head);
  const ref = m?.[1];
  if (!ref || !PLAIN_BRANCH.test(ref) || ref.includes("..") || /\.lock(?:\/|$)|\.(?:\/|$)/.test(ref)) return null;
  return ref;
}

/**
 * The reflog message git writes for a commit: `commit: ` (or `commit (merge): `) and the first line of
 * the message, runs of white space made one space and both ends trimmed (refs.c's copy_reflog_msg).
 */
function reflogMessage(kind: string, message: string): string {
  const subject = message.split("\n", 1)[0] ?? "";
  return `${kind}: ${subject}`.replace(/[ \t\r\n]+/g, " ").replace(/ $/, "");
}

/**
 * Moves `branch` of `gitDir` from `from` to `to` as `git commit` does: the loose ref written through
 * `branch.lock` and renamed into place, and a line added to the branch's and HEAD's reflogs where they
 * exist. False, with nothing changed, when the lock is taken (someone else is moving it: git is asked).
 */
export function moveBranch(gitDir: string, branch: string, from: string, to: string, who: string, kind: string, message: string): boolean {
  if (!replaceThroughLock(path.join(gitDir, ...branch.split("/")), `${to}\n`)) return false;
  const line = `${from} ${to} ${who}\t${reflogMessage(kind, message)}\n`;
  for (const log of [path.join(gitDir, "logs", ...branch.split("/")), path.join(gitDir, "logs", "HEAD")]) {
    if (existsSync(log)) appendFileSync(log, line);
  }
  return true;
}
