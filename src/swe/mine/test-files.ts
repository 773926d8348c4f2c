/**
 * What counts as a test file, per language, when a change is split into the gold `patch` and the
 * `test_patch`. A file is a test file when its language's name rule says so, or (any file: data,
 * snapshots, fixtures) when it lies in a test directory. The rules are listed in docs/mining-rules.md.
 */

/** A language SWE mining knows test files of. */
interface TestRules {
  /** How GitHub spells it (the `programming_language` of mined instances). */
  display: string;
  extensions: readonly string[];
  /** Test files by their name (the last path segment). */
  names: readonly RegExp[];
  /** Directory names anywhere in the path that hold tests. */
  dirs: readonly string[];
  /** Path prefixes anywhere in the path that hold tests (`src/test/` of Maven and Gradle). */
  paths: readonly string[];
}

const JS_NAMES = [/\.(test|spec)\.[cm]?[jt]sx?$/, /^test\.[cm]?[jt]sx?$/];
const JS_DIRS = ["test", "tests", "__tests__", "spec"];
const JVM_NAMES = (ext: string) => [new RegExp(`^Test[A-Z0-9_]\\w*\\${ext}$`), new RegExp(`\\w(Test|Tests|IT|Spec)\\${ext}$`)];

export const TEST_RULES: Readonly<Record<string, TestRules>> = {
  python: {
    display: "Python",
    extensions: [".py"],
    names: [/^test_.*\.py$/, /_tests?\.py$/, /^conftest\.py$/, /^tests?\.py$/],
    dirs: ["test", "tests", "testing"],
    paths: [],
  },
  javascript: { display: "JavaScript", extensions: [".js", ".mjs", ".cjs", ".jsx"], names: JS_NAMES, dirs: JS_DIRS, paths: [] },
  typescript: { display: "TypeScript", extensions: [".ts", ".mts", ".cts", ".tsx"], names: JS_NAMES, dirs: JS_DIRS, paths: [] },
  java: { display: "Java", extensions: [".java"], names: JVM_NAMES(".java"), dirs: [], paths: ["src/test/"] },
  kotlin: { display: "Kotlin", extensions: [".kt"], names: JVM_NAMES(".kt"), dirs: [], paths: ["src/test/"] },
};

export const SWE_LANGUAGES: readonly string[] = Object.keys(TEST_RULES);

/** How a path of a change is used: a test file, a source file of a language, or anything else (docs, configuration). */
type FileRole = { role: "test"; language: string | null } | { role: "source"; language: string } | { role: "other" };

function languageOf(file: string, languages: readonly string[]): string | null {
  const base = file.slice(file.lastIndexOf("/") + 1);
  for (const lang of languages) {
    if ((TEST_RULES[lang]?.extensions ?? []).some((e) => base.endsWith(e) && base.length > e.length)) return lang;
  }
  return null;
}

function inTestDir(file: string, languages: readonly string[]): boolean {
  const dirs = file.split("/").slice(0, -1);
  const padded = `/${file}`;
  return languages.some((lang) => {
    const rules = TEST_RULES[lang];
    if (!rules) return false;
    return dirs.some((d) => rules.dirs.includes(d)) || rules.paths.some((p) => padded.includes(`/${p}`));
  });
}

/** The role of `file` (repository-relative) in a change, for the languages mined. */
export function fileRole(file: string, languages: readonly string[]): FileRole {
  const language = languageOf(file, languages);
  const base = file.slice(file.lastIndexOf("/") + 1);
  const named = language !== null && (TEST_RULES[language]?.names ?? []).some((r) => r.test(base));
  if (named || inTestDir(file, languages)) return { role: "test", language };
  return language === null ? { role: "other" } : { role: "source", language };
}
