import { diffFiles } from "../util/unified-diff.js";
import { PLUGIN_MODULE } from "./pytest-results.js";
import { at } from "../util/at.js";

/**
 * The files an evaluation owns: the tests and everything that decides how they run. A test-scored
 * answer is the agent's change to the project's code; what it changes among these files is dropped
 * before the tests run, and recorded.
 *
 * - test files: below a `tests/` or `test/` directory at any depth, `test_*.py`, `*_test.py`, and the
 *   files the dataset names (a SWE instance's `test_patch`, a commit0 task's `test_dir`);
 * - pytest's configuration and hooks: every `conftest.py`, and `pytest.ini`, `tox.ini`, `setup.cfg` and
 *   `pyproject.toml` as whole files (pytest reads its section of each, and a project's own build
 *   sections cannot be told from an `addopts` that loads a plug-in without reading them as pytest does,
 *   so the evaluation's version of each file is used, at any depth, since pytest looks for its
 *   configuration upwards from the tests);
 * - the plug-ins that configuration names (`-p NAME` in it, `pytest_plugins` in a conftest), as modules
 *   at the root or below `src/`;
 * - what Python runs at start-up: `sitecustomize.py`, `usercustomize.py` and `.pth` files anywhere;
 * - Python's byte-code caches (`__pycache__/`, `*.pyc`, `*.pyo`): Python may run a cached module in place of
 *   its source (an unchecked-hash `.pyc` is never compared with it), so only the evaluation's own run writes them;
 * - the name of gitgood's own results plug-in, which nothing in the work tree may shadow;
 * - what decides how JavaScript and Java tests run, at any depth: `package.json` (its runner settings,
 *   setup files and reporters), the vitest, vite, jest and babel configurations, `.mocharc.*`, `.babelrc`,
 *   `pom.xml` and the Gradle build files (a reporter or a skipped suite there would forge the result; the
 *   environment is built from the evaluation's versions anyway).
 */
export interface TestInfrastructure {
  /** Whether a repository-relative path is the evaluation's. */
  owns(file: string): boolean;
}

const CONFIG_FILES = new Set(["conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", "sitecustomize.py", "usercustomize.py"]);
const TEST_DIRS = new Set(["tests", "test"]);
const RUNNER_CONFIG =
  /^(package\.json|pom\.xml|(build|settings)\.gradle(\.kts)?|\.babelrc(\.[A-Za-z]+)?|\.mocharc\.[A-Za-z]+|(vitest|vite|jest|babel)\.config\.([cm]?[jt]s|json)|vitest\.workspace\.([cm]?[jt]s|json))$/;

/** A test file by its name alone: `test_*.py` or `*_test.py`. */
export function isTestFileName(file: string): boolean {
  const name = file.slice(file.lastIndexOf("/") + 1);
  return name.endsWith(".py") && (name.startsWith("test_") || name.endsWith("_test.py"));
}

/** The paths a plug-in module may be found at: `a/b.py` or the package `a/b/`, at the root or below `src/`. */
function modulePrefixes(module: string): string[] {
  const rel = module.replace(/\./g, "/");
  return ["", "src/"].flatMap((root) => [`${root}${rel}.py`, `${root}${rel}/`]);
}

/**
 * The plug-in modules a configuration names: `-p NAME` (not `-p no:NAME`) anywhere in the text (an
 * `addopts` line of any of pytest's files) and the strings of a `pytest_plugins = …` assignment.
 */
export function pluginModulesNamed(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/(?:^|[\s"'=,[])-p\s*([A-Za-z_][\w.]*)/g)) found.add(at(m, 1));
  for (const m of text.matchAll(/pytest_plugins\s*=\s*(\[[^\]]*\]|\([^)]*\)|"[^"]*"|'[^']*')/g)) {
    for (const s of at(m, 1).matchAll(/["']([A-Za-z_][\w.]*)["']/g)) found.add(at(s, 1));
  }
  return [...found].sort();
}

/** Normalizes a repository-relative path (`./` and repeated slashes dropped). */
function normal(file: string): string {
  return file.replace(/^(\.\/)+/, "").replace(/\/{2,}/g, "/");
}

/**
 * The rules of `testInfrastructure` as data, so that a verifier outside gitgood (a Harbor task's
 * test.sh) can apply the very same ones: the general names and patterns, and a project's own files,
 * directories (with a trailing `/`) and plug-in module paths (a trailing `/` is a package).
 */
export interface InfrastructureRules {
  configFiles: string[];
  testDirs: string[];
  /** A regular expression (JavaScript's and Python's syntax alike) over a file's name. */
  runnerConfig: string;
  /** The name prefix of gitgood's own results plug-in. */
  pluginModule: string;
  files: string[];
  dirs: string[];
  pluginPaths: string[];
}

/** The rules for a project: the general ones, the files and directories the dataset names, and the plug-in modules its configuration names. */
export function infrastructureRules(ownedFiles: readonly string[] = [], pluginModules: readonly string[] = []): InfrastructureRules {
  return {
    configFiles: [...CONFIG_FILES].sort(),
    testDirs: [...TEST_DIRS].sort(),
    runnerConfig: RUNNER_CONFIG.source,
    pluginModule: PLUGIN_MODULE,
    files: [...new Set(ownedFiles.map(normal).filter((f) => f !== "" && !f.endsWith("/")))].sort(),
    dirs: [...new Set(ownedFiles.map(normal).filter((f) => f !== "").map((f) => (f.endsWith("/") ? f : `${f}/`)))].sort(),
    pluginPaths: [...new Set(pluginModules.flatMap(modulePrefixes))].sort(),
  };
}

/**
 * The evaluation's files for a project: the general rules above, plus the files and directories the
 * dataset names (`ownedFiles`, a directory given with a trailing `/` or as a prefix of paths below it)
 * and the plug-in modules its configuration names.
 */
export function testInfrastructure(ownedFiles: readonly string[] = [], pluginModules: readonly string[] = []): TestInfrastructure {
  const rules = infrastructureRules(ownedFiles, pluginModules);
  const files = new Set(rules.files);
  return {
    owns(file: string): boolean {
      const p = normal(file);
      const parts = p.split("/");
      const name = parts.at(-1) ?? "";
      if (CONFIG_FILES.has(name) || RUNNER_CONFIG.test(name) || name.endsWith(".pth") || name.startsWith(PLUGIN_MODULE)) return true;
      if (parts.includes("__pycache__") || /\.py[co]$/.test(name)) return true;
      if (parts.slice(0, -1).some((d) => TEST_DIRS.has(d))) return true;
      if (isTestFileName(p)) return true;
      if (files.has(p) || rules.dirs.some((d) => p.startsWith(d))) return true;
      return rules.pluginPaths.some((pre) => (pre.endsWith("/") ? p.startsWith(pre) : p === pre));
    },
  };
}

/** A patch taken apart: the sections kept and the paths of those dropped. */
export interface SplitPatch {
  kept: string;
  dropped: string[];
}

/**
 * Splits a patch (one character per byte, so byte-exact) by file section and keeps the sections for
 * which `keep` holds for every path they touch; text before the first section is dropped. Sections are
 * `diff --git` headers with what follows, or `---`/`+++` pairs of a plain diff; hunk bodies are
 * followed by their line counts, so a body line never starts a section.
 */
export function splitPatch(patch: string, keep: (file: string) => boolean): SplitPatch {
  const sections: Array<{ lines: string[]; git: boolean; named: boolean }> = [];
  let cur: (typeof sections)[number] | null = null;
  let oldLeft = 0;
  let newLeft = 0;
  const lines = patch.split("\n");
  const endsWithNewline = patch.endsWith("\n");
  if (endsWithNewline) lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = at(lines, i);
    if (oldLeft > 0 || newLeft > 0) {
      if (line.startsWith("+")) newLeft--;
      else if (line.startsWith("-")) oldLeft--;
      else if (!line.startsWith("\\")) {
        oldLeft--;
        newLeft--;
      }
      cur?.lines.push(line);
      continue;
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      cur?.lines.push(line);
      continue;
    }
    if (line.startsWith("diff --git ")) {
      cur = { lines: [line], git: true, named: false };
      sections.push(cur);
      continue;
    }
    if (line.startsWith("--- ") && (lines[i + 1] ?? "").startsWith("+++ ")) {
      if (!cur || !cur.git || cur.named) {
        cur = { lines: [], git: false, named: true };
        sections.push(cur);
      }
      cur.named = true;
      cur.lines.push(line, at(lines, i + 1));
      i++;
      continue;
    }
    cur?.lines.push(line);
  }
  const kept: string[] = [];
  const dropped = new Set<string>();
  for (const s of sections) {
    const text = `${s.lines.join("\n")}\n`;
    const paths = diffFiles(text).flatMap((f) => [f.old, f.new]).filter((p): p is string => p !== null);
    if (paths.every(keep)) kept.push(text);
    else for (const p of paths) if (!keep(p)) dropped.add(p);
  }
  let out = kept.join("");
  if (!endsWithNewline && out.endsWith("\n") && kept.length === sections.length && sections.length > 0) out = out.slice(0, -1);
  return { kept: out, dropped: [...dropped].sort() };
}
