import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/*
 * The git commands an external agent runs itself, in its own shell, recorded for the trajectory (and so for
 * the history-probe audit). A `git` of gitgood's comes first on the program's PATH: it writes its arguments
 * to file descriptor 3, a pipe gitgood reads from outside the jail, runs the real git, then writes how the
 * command ended: its exit status and, for the commands that read objects by id (`show`, `cat-file`,
 * `rev-parse`, `log`, `rev-list`, `ls-tree`), the ids it named that the repository does not hold. The
 * script sits in the attempt's broker directory, which an isolated program sees read-only; what was written
 * to the pipe cannot be taken back. A program that runs git by its full path, closes descriptor 3 or reads
 * git's files without git is not recorded: the record shows what an agent did through `git`, not all it
 * could do.
 */

/** The folder of the broker directory that holds the recording `git`. */
const BIN = "git-log-bin";
/** The variable holding the PATH the program would have had, which the recording `git` runs the real git with. */
const AGENT_PATH_ENV = "GITGOOD_AGENT_PATH";

/*
 * Two records on the pipe, NUL-ended fields each: `c PID N ARG…` when a command starts (N arguments), and
 * `e PID STATUS K ID…` when it ends (K ids named but not held). An id is an argument of 7 to 64 hex digits,
 * alone or before a revision suffix (`~`, `^`, `:`, `@`), that `git rev-parse --verify ID^{object}` does not
 * find, run with the command's own global options (`-C DIR`, `--git-dir`, …).
 */
const SCRIPT = String.raw`#!/bin/sh
# gitgood records this git command for the trajectory (file descriptor 3), runs git, then records how it
# ended: its exit status and the objects it named by id that the repository does not hold. A process that
# does not have descriptor 3 (a program's child started with only its standard streams) runs git unrecorded:
# a redirection to a closed descriptor would end this shell, which the command built-in prevents. Only
# built-ins run below but for git itself, its object checks and the quoting of global options.
if command : 2>/dev/null >&3; then log=1; else log=''; fi
[ -z "$log" ] || { printf 'c\0%s\0%s\0' "$$" "$#"; [ $# -eq 0 ] || printf '%s\0' "$@"; } >&3 2>/dev/null
if [ -n "${"$"}{${AGENT_PATH_ENV}+set}" ]; then
  PATH="$${AGENT_PATH_ENV}"
else
  # A child given a fresh environment (MCP clients start their servers so) kept PATH but not the variable:
  # the same PATH without this folder.
  self=${"$"}{0%/*}
  rest=''
  oldifs=$IFS
  IFS=:
  set -f
  for d in $PATH; do [ "$d" = "$self" ] || rest="$rest${"$"}{rest:+:}$d"; done
  set +f
  IFS=$oldifs
  PATH=$rest
fi
export PATH
quoted() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
git "$@"
code=$?
pre=''
sub=''
value=''
ids=''
for a do
  if [ -n "$sub" ]; then
    [ "$a" = -- ] && break
    case $a in -*) continue ;; esac
    h=${"$"}{a%%[~^:@]*}
    case $h in '' | *[!0-9a-fA-F]*) continue ;; esac
    [ ${"$"}{#h} -ge 7 ] && [ ${"$"}{#h} -le 64 ] || continue
    eval "git $pre rev-parse -q --verify \"\$h^{object}\"" >/dev/null 2>&1 || ids="$ids $h"
  elif [ -n "$value" ]; then
    pre="$pre $(quoted "$a")"
    value=''
  else
    case $a in
      -C | -c | --git-dir | --work-tree | --namespace | --config-env) pre="$pre $(quoted "$a")"; value=1 ;;
      -*) pre="$pre $(quoted "$a")" ;;
      show | cat-file | rev-parse | log | rev-list | ls-tree) sub=$a ;;
      *) break ;;
    esac
  fi
done
set -- $ids
[ -z "$log" ] || { printf 'e\0%s\0%s\0%s\0' "$$" "$code" "$#"; [ $# -eq 0 ] || printf '%s\0' "$@"; } >&3 2>/dev/null
exit "$code"
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

/** One git command the program ran: its command line, and how it ended when the recording `git` saw it end. */
export interface ShellGitCommand {
  /** As a shell would read it: `git log --all -S 'a word'`. */
  command: string;
  /** git's exit status, null when the command never ended (killed, or the record was cut short). */
  exit: number | null;
  /** The object ids it named that the repository did not hold (lower case). */
  missing: string[];
}

const NOT_HELD = "objects not in the repository: ";

/** The text of a shell command's `tool_result`: its exit status and, on a line of its own, the ids not held. */
export function shellResultText(c: ShellGitCommand): string {
  const exit = c.exit === null ? "did not end" : `exit ${c.exit}`;
  return c.missing.length > 0 ? `${exit}\n${NOT_HELD}${c.missing.join(" ")}` : exit;
}

/** The ids a shell command's `tool_result` text says the repository did not hold. */
export function objectsNotHeld(output: string): string[] {
  const line = output.split("\n").find((l) => l.startsWith(NOT_HELD));
  return line ? line.slice(NOT_HELD.length).split(" ").filter((id) => /^[0-9a-f]{7,64}$/.test(id)) : [];
}

const count = (field: string | undefined, digits: number): number => (field !== undefined && new RegExp(`^\\d{1,${digits}}$`).test(field) ? Number(field) : -1);

/**
 * The git commands recorded on descriptor 3, in the order they started, each matched with the record of its
 * end (the latest unended command of the same process). A record cut short (the pipe's cap, a program
 * writing its own bytes there) ends the list; a field that starts no record is skipped.
 */
export function recordedGitCommands(channel: Buffer): ShellGitCommand[] {
  const fields = channel.toString("utf8").split("\0");
  fields.pop();
  const out: ShellGitCommand[] = [];
  const open = new Map<string, ShellGitCommand[]>();
  let i = 0;
  while (i < fields.length) {
    const kind = fields[i];
    const pid = fields[i + 1] ?? "";
    if ((kind !== "c" && kind !== "e") || !/^\d{1,10}$/.test(pid)) {
      i++;
      continue;
    }
    if (kind === "c") {
      const n = count(fields[i + 2], 4);
      if (n < 0) {
        i++;
        continue;
      }
      if (i + 3 + n > fields.length) break;
      const c: ShellGitCommand = { command: ["git", ...fields.slice(i + 3, i + 3 + n).map(shown)].join(" "), exit: null, missing: [] };
      out.push(c);
      open.set(pid, [...(open.get(pid) ?? []), c]);
      i += 3 + n;
      continue;
    }
    const code = count(fields[i + 2], 3);
    const k = count(fields[i + 3], 4);
    if (code < 0 || k < 0) {
      i++;
      continue;
    }
    if (i + 4 + k > fields.length) break;
    const c = open.get(pid)?.pop();
    if (c) {
      c.exit = code;
      c.missing = fields.slice(i + 4, i + 4 + k).map((id) => id.toLowerCase()).filter((id) => /^[0-9a-f]{7,64}$/.test(id));
    }
    i += 4 + k;
  }
  return out;
}
