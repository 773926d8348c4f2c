/** A mode of `gitgood mine --type` a family adds, as the command's words name it. */
interface MineTypeWords {
  type: string;
  what: string;
}

/** `gitgood mine`'s one-line description, naming the families' modes (the verb table lists it too). */
export function mineSummary(types: readonly MineTypeWords[]): string {
  return `mine GitGoodBench samples (merge conflicts, file-commit chains)${types.map((t) => ` or ${t.what} (--type ${t.type})`).join("")} from a git repository`;
}

/** The help of `--type`: `all` is the built-in types; a family's mode runs only when named. */
export function mineTypeHelp(types: readonly MineTypeWords[]): string {
  return `which samples to mine (all: merge and file_commit_chain${types.map((t) => `; ${t.type} only when named`).join("")})`;
}
