/*
 * The commit messages git 2.39's sequencer writes while it folds commits into the one before them with
 * `fixup` and `fixup -C` (its squash message, kept while a run of folds goes on, and the message the
 * last fold of the run commits), in the C locale with `#` as the comment character. Only the runs
 * own-continue.ts writes itself are covered: plain fixups, with at most one `fixup -C` as the run's
 * first fold (a later `fixup -C` rewrites the earlier messages in a way this does not follow, and a
 * `squash` is never written here).
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

/** The state of a run of folds: how many commits it has folded, the squash message so far, and the message its last fold commits. */
export interface FoldRun {
  folded: number;
  squash: string;
  last: string;
}

/**
 * The run after one more fold of a commit whose message (from its subject on) is `body` into the
 * commit whose message is `headBody`: `replace` for `fixup -C`. Null for a fold this writer leaves to
 * git (a `fixup -C` after another fold, or whose message starts with `amend!`, which git comments out).
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
  if (replace) return null;
  const count = run.folded + 2;
  const firstEnd = run.squash.indexOf("\n");
  const rest = firstEnd === -1 ? "" : run.squash.slice(firstEnd);
  const squash = `# This is a combination of ${count} commits.${rest}\n# The commit message #${count} will be skipped:\n\n${commentedLines(body)}`;
  return { folded: run.folded + 1, squash, last: run.last };
}
