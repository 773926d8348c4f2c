/**
 * A test command run without a shell where the shell would add nothing: a process start saved on every
 * test run. Only commands whose meaning is plain are taken: words of ordinary characters, single-quoted
 * text, and double-quoted text whose only expansion is a variable gitgood itself sets (`"$GITGOOD_JUNIT"`).
 * Anything else a shell would interpret (operators, redirections, globs, escapes, unquoted or other
 * variables, command substitution, assignments, builtins and keywords) keeps the command on `sh -c`.
 */

/** Characters that stand for themselves in a shell word, outside quotes. */
const PLAIN = /^[A-Za-z0-9_@%+,./:=-]$/;
/** Inside double quotes, besides `$NAME`: characters with no meaning there. */
const QUOTED_PLAIN = /^[^"$`\\!]$/;
/** Words a shell treats as its own (keywords and builtins without a program of the same name), where a program would not run. */
const SHELL_OWN = new Set([
  "!", ".", ":", "[[", "{", "}", "alias", "bg", "break", "case", "cd", "command", "continue", "do", "done", "elif", "else", "esac", "eval", "exec",
  "exit", "export", "fc", "fg", "fi", "for", "function", "getopts", "hash", "if", "in", "jobs", "local", "read", "readonly", "return", "select",
  "set", "shift", "source", "then", "time", "times", "trap", "type", "ulimit", "umask", "unalias", "unset", "until", "wait", "while",
]);

/**
 * The argument list `command` stands for when run by `sh -c`, with `vars` (gitgood's `GITGOOD_*`
 * variables) expanded; null when only a shell can say.
 */
export function plainCommandWords(command: string, vars: Readonly<Record<string, string>>): string[] | null {
  const words: string[] = [];
  let i = 0;
  const n = command.length;
  while (i < n) {
    const c = command[i] as string;
    if (c === " " || c === "\t") {
      i++;
      continue;
    }
    let word = "";
    for (;;) {
      const ch = command[i];
      if (ch === undefined || ch === " " || ch === "\t") break;
      if (ch === "'") {
        const end = command.indexOf("'", i + 1);
        if (end === -1) return null;
        word += command.slice(i + 1, end);
        i = end + 1;
      } else if (ch === '"') {
        i++;
        for (;;) {
          const q = command[i];
          if (q === undefined) return null;
          if (q === '"') {
            i++;
            break;
          }
          if (q === "$") {
            const m = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/.exec(command.slice(i));
            const name = m?.[1] ?? m?.[2];
            if (!m || !name || !name.startsWith("GITGOOD_") || vars[name] === undefined) return null;
            word += vars[name];
            i += m[0].length;
          } else if (QUOTED_PLAIN.test(q)) {
            word += q;
            i++;
          } else return null;
        }
      } else if (PLAIN.test(ch)) {
        word += ch;
        i++;
      } else return null;
    }
    words.push(word);
  }
  const first = words[0];
  // An assignment before the program, or a word the shell runs itself, needs the shell.
  if (first === undefined || first === "" || /^[A-Za-z_][A-Za-z0-9_]*=/.test(command.trimStart()) || SHELL_OWN.has(first)) return null;
  return words;
}
