import { GitGoodError } from "../errors.js";

/**
 * Languages a sample may be mined for, by file extension. GitGoodBench uses python, java and kotlin;
 * the others let users build the same kind of benchmark for their own stacks.
 */
export const LANGUAGE_EXTENSIONS: Readonly<Record<string, readonly string[]>> = {
  python: [".py"],
  java: [".java"],
  kotlin: [".kt"],
  javascript: [".js", ".mjs", ".cjs", ".jsx"],
  typescript: [".ts", ".mts", ".cts", ".tsx"],
  go: [".go"],
  rust: [".rs"],
  c: [".c", ".h"],
  cpp: [".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"],
  csharp: [".cs"],
  ruby: [".rb"],
  php: [".php"],
  scala: [".scala"],
  swift: [".swift"],
};

/** How GitHub spells each language, used for the `programming_language` field. */
export const LANGUAGE_DISPLAY: Readonly<Record<string, string>> = {
  python: "Python",
  java: "Java",
  kotlin: "Kotlin",
  javascript: "JavaScript",
  typescript: "TypeScript",
  go: "Go",
  rust: "Rust",
  c: "C",
  cpp: "C++",
  csharp: "C#",
  ruby: "Ruby",
  php: "PHP",
  scala: "Scala",
  swift: "Swift",
};

/** The languages whose files count when mining, when the caller names none (`mine --languages`): GitGoodBench's Python, Java and Kotlin. */
export const DEFAULT_LANGUAGES: readonly string[] = ["python", "java", "kotlin"];

/** Maps file names to one of a chosen set of languages. */
export class LanguageSet {
  readonly names: readonly string[];
  private readonly byExtension = new Map<string, string>();

  constructor(names: readonly string[]) {
    const unknown = names.filter((n) => !(n in LANGUAGE_EXTENSIONS));
    if (unknown.length > 0) {
      throw new GitGoodError(
        "BAD_OPTION",
        `unknown language ${unknown.map((u) => `'${u}'`).join(", ")}; known: ${Object.keys(LANGUAGE_EXTENSIONS).join(", ")}`,
        { unknown },
      );
    }
    if (names.length === 0) throw new GitGoodError("BAD_OPTION", "at least one language is needed");
    this.names = [...names];
    for (const name of names) for (const ext of LANGUAGE_EXTENSIONS[name] ?? []) this.byExtension.set(ext, name);
  }

  /** The language of a path, or null when it is not one of the set's. */
  languageOf(filePath: string): string | null {
    const slash = filePath.lastIndexOf("/");
    const dot = filePath.lastIndexOf(".");
    if (dot <= slash + 1) return null; // no extension, or a dot file such as `.py`
    return this.byExtension.get(filePath.slice(dot)) ?? null;
  }

  has(filePath: string): boolean {
    return this.languageOf(filePath) !== null;
  }
}
