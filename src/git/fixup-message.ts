/*
 * The commit messages git 2.39's sequencer writes while it folds commits into the one before them with
 * `fixup` and `fixup -C` (its squash message, kept while a run of folds goes on, and the message the
 * last fold of the run commits), in the C locale with `#` as the comment character, for runs of
 * `fixup` and `fixup -C` (gitgood's todos never hold a `squash`: it becomes a fixup and an amend).
 */

/** White space as git's ctype has it. */
const SPACE = /^[ \t\n\r]*$/;

/**
 * The message from its first line that is not blank on (git's find_commit_subject, which the sequencer
 * uses for every message it takes from a commit): lines of nothing but white space at the start dropped.
 */
export function fromSubject(message: string): string {
  let at = 0;
  while (at < message.length) {
    const end = message.indexOf("\n", at);
    const next = end === -1 ? message.length : end + 1;
    if (!SPACE.test(message.slice(at, next))) break;
    at = next;
  }
  return message.slice(at);
}

/** `text` commented out as git does it: `# ` before each line, `#` alone before one that is empty or starts with a tab, the last line ended. */
export function commentedLines(text: string): string {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const out = lines.map((l) => (l.startsWith("\n") || l.startsWith("\t") ? `#${l}` : `# ${l}`)).join("");
  return out === "" || out.endsWith("\n") ? out : `${out}\n`;
}

/** The header git puts before the message of commit `n` of a run that is kept, or skipped. */
function messageHeader(n: number, kept: boolean): string {
  if (n === 1) return kept ? "# This is the 1st commit message:\n" : "# The 1st commit message will be skipped:\n";
  return kept ? `# This is the commit message #${n}:\n` : `# The commit message #${n} will be skipped:\n`;
}

/**
 * The squash message with every message it keeps turned into a skipped one (header and lines commented
 * out), as git does before a `fixup -C` later in a run: it walks the lines looking for the header of
 * message 1, then 2, and so on; after a kept header the lines up to the next header are commented out
 * (but those at their start that are comments already), after a skipped one they are copied as they
 * are; a blank line right before a header stays as it is.
 */
function skipKeptMessages(squash: string): string {
  let out = "";
  let commenting = false;
  const copy = (text: string): void => {
    if (!commenting) {
      out += text;
      return;
    }
    // Lines at the start that are comments already are kept as they are.
    let rest = text;
    while (rest.startsWith("#")) {
      const end = rest.indexOf("\n");
      const line = end === -1 ? rest : rest.slice(0, end + 1);
      out += line;
      rest = rest.slice(line.length);
    }
    out += commentedLines(rest);
    if (out !== "" && !out.endsWith("\n")) out += "\n";
  };
  let n = 1;
  let start = 0;
  let at: number | null = 0;
  while (at !== null) {
    const blankBefore = at > start + 1 && squash[at - 2] === "\n" ? 1 : 0;
    const kept = messageHeader(n, true);
    const skipped = messageHeader(n, false);
    if (squash.startsWith(kept, at)) {
      let next: number = at + kept.length;
      copy(squash.slice(start, at - blankBefore));
      if (blankBefore === 1) out += "\n";
      out += skipped;
      if (squash[next] === "\n") {
        out += "\n";
        next++;
      }
      start = at = next;
      commenting = true;
      n++;
    } else if (squash.startsWith(skipped, at)) {
      copy(squash.slice(start, at - blankBefore));
      start = at - blankBefore;
      at += skipped.length;
      commenting = false;
      n++;
    } else {
      const end = squash.indexOf("\n", at);
      at = end === -1 ? null : end + 1;
    }
  }
  copy(squash.slice(start));
  return out;
}

/** The state of a run of folds: how many commits it has folded, the squash message so far, and the message its last fold commits. */
export interface FoldRun {
  folded: number;
  squash: string;
  last: string;
}

/**
 * The run after one more fold of a commit whose message (from its subject on) is `body` into the
 * commit whose message is `headBody`: `replace` for `fixup -C`. Null for a fold this writer leaves to
 * git (a `fixup -C` whose message starts with `amend!`, whose subject git comments out).
 */
export function foldInto(run: FoldRun | null, headBody: string, body: string, replace: boolean): FoldRun | null {
  if (run === null) {
    if (replace) {
      if (body.startsWith("amend!")) return null;
      const squash = `# This is a combination of 2 commits.\n# The 1st commit message will be skipped:\n\n${commentedLines(headBody)}\n# This is the commit message #2:\n\n${body}`;
      return { folded: 1, squash, last: fromSubject(body) };
    }
    const squash = `# This is a combination of 2 commits.\n# This is the 1st commit message:\n\n${headBody}\n# The commit message #2 will be skipped:\n\n${commentedLines(body)}`;
    return { folded: 1, squash, last: headBody };
  }
  const count = run.folded + 2;
  const firstEnd = run.squash.indexOf("\n");
  const rest = firstEnd === -1 ? "" : run.squash.slice(firstEnd);
  const renamed = `# This is a combination of ${count} commits.${rest}`;
  if (replace) {
    if (body.startsWith("amend!")) return null;
    return { folded: run.folded + 1, squash: `${skipKeptMessages(renamed)}\n# This is the commit message #${count}:\n\n${body}`, last: fromSubject(body) };
  }
  const squash = `${renamed}\n# The commit message #${count} will be skipped:\n\n${commentedLines(body)}`;
  return { folded: run.folded + 1, squash, last: run.last };
}
