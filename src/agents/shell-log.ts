import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/*
 * The git commands an external agent runs itself, in its own shell, recorded for the trajectory (and so for
 * the history-probe audit). A `git` of gitgood's comes first on the program's PATH: it writes its arguments
 * to file descriptor 3, a pipe gitgood reads from outside the jail, then runs the real git. The script sits
 * in the attempt's broker directory, which an isolated program sees read-only; what was written to the pipe
 * cannot be taken back. A program that runs git by its full path, closes descriptor 3 or reads git's files
 * without git is not recorded: the record shows what an agent did through `git`, not all it could do.
 */

/** The folder of the broker directory that holds the recording `git`. */
const BIN = "git-log-bin";
/** The variable holding the PATH the program would have had, which the recording `git` runs the real git with. */
const AGENT_PATH_ENV = "GITGOOD_AGENT_PATH";

const SCRIPT = `#!/bin/sh
# gitgood records this git command for the trajectory (file descriptor 3), then runs git.
{ printf '%s\\0' "$#" "$@" >&3; } 2>/dev/null
PATH="$${AGENT_PATH_ENV}"
export PATH
exec git "$@"
`;

/**
 * Writes the recording `git` into the broker directory `shared` (host side) and returns the variables that
 * put it first on the PATH of a program that sees that directory at `seen`.
 */
export function gitRecorder(shared: string, seen: string, hostPath: string): Record<string, string> {
  const bin = path.join(shared, BIN);
  mkdirSync(bin, { recursive: true });
  const file = path.join(bin, "git");
  writeFileSync(file, SCRIPT);
  chmodSync(file, 0o755);
  return { PATH: `${path.join(seen, BIN)}:${hostPath}`, [AGENT_PATH_ENV]: hostPath };
}

/** Shows one argument as a shell would need it: bare when plain, else in single quotes. */
function shown(arg: string): string {
  return /^[\w@%+=:,./^~-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * The git commands recorded on descriptor 3: each a count then that many NUL-ended arguments, shown as a
 * command line (`git log --all -S word`). A record cut short (the pipe's cap, a program writing its own
 * bytes there) ends the list; bytes that are not a count are skipped to the next record's start.
 */
export function recordedGitCommands(channel: Buffer): string[] {
  const fields = channel.toString("utf8").split("\0");
  fields.pop();
  const out: string[] = [];
  let i = 0;
  while (i < fields.length) {
    const count = /^\d{1,4}$/.test(fields[i] ?? "") ? Number(fields[i]) : -1;
    i++;
    if (count < 0) continue;
    if (i + count > fields.length) break;
    out.push(["git", ...fields.slice(i, i + count).map(shown)].join(" "));
    i += count;
  }
  return out;
}
