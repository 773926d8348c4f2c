import { lstatSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { readRegularFile } from "../util/files.js";
import { userSpecFor } from "./spec-file.js";
import type { EnvKind, EnvSpec, EnvSpecFile, EnvTarget } from "./types.js";

/** A regular file (not a link) at `rel` below the work tree. */
function hasFile(workTree: string, rel: string): boolean {
  try {
    return lstatSync(path.join(workTree, rel)).isFile();
  } catch {
    return false;
  }
}

function hasDir(workTree: string, rel: string): boolean {
  try {
    return lstatSync(path.join(workTree, rel)).isDirectory();
  } catch {
    return false;
  }
}

/** The interpreter a Python environment is made with when its spec names none. */
export const DEFAULT_PYTHON = "python3";

const COMMON: Omit<EnvSpec, "kind" | "test" | "testArgs" | "ids" | "log"> = {
  python: DEFAULT_PYTHON,
  setup: [],
  editable: false,
  beforeTests: [],
  junit: [],
  env: {},
  pythonPath: [],
  network: null,
  setupTimeout: null,
  testTimeout: null,
};

/** pytest from the project's root (which puts the root on sys.path), with every outcome in the summary and JUnit XML. */
export const PYTEST_COMMAND = 'python -m pytest -rA -p no:cacheprovider --junitxml="$GITGOOD_JUNIT"';

function pythonDefault(target: EnvTarget, workTree: string): EnvSpec {
  const base: EnvSpec = { ...COMMON, kind: "python", test: PYTEST_COMMAND, testArgs: "paths", ids: "pytest", log: "pytest", pythonPath: ["."] };
  if (target.repo === "django/django" || (hasFile(workTree, "tests/runtests.py") && hasFile(workTree, "django/__init__.py"))) {
    return { ...base, test: "python tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1", testArgs: "django", log: "django" };
  }
  if (target.repo === "sympy/sympy" || (hasFile(workTree, "bin/test") && hasFile(workTree, "sympy/__init__.py"))) {
    return { ...base, test: "python bin/test -C --verbose", log: "sympy" };
  }
  // A src layout (`src/pkg/`) is importable only with src/ on the path.
  return hasDir(workTree, "src") && !hasFile(workTree, "src/__init__.py") ? { ...base, pythonPath: [".", "src"] } : base;
}

interface PackageJson {
  scripts?: Record<string, string>;
  devDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
}

/** Flags of a runner's command line in the project's `test` script that choose what runs and how it is configured. */
const KEPT_FLAGS: Readonly<Record<"vitest" | "jest", readonly string[]>> = {
  vitest: ["--project", "--config", "-c", "--dir", "--root", "-r", "--environment", "--pool"],
  jest: ["--config", "-c", "--selectProjects", "--rootDir", "--testEnvironment"],
};

/**
 * The flags of `runner` in the `test` script that decide which projects and configuration run (vitest's
 * `--project node`, jest's `--config jest.unit.js`), as extra arguments for the built-in command; the
 * others (coverage, reporters, watch) are the script's own business. Only plain words are kept.
 */
export function scriptRunnerFlags(script: string, runner: "vitest" | "jest"): string {
  const words = script.split(/&&|\|\||;|\|/).find((part) => new RegExp(`(^|[\\s/])${runner}(\\s|$)`).test(part))?.trim().split(/\s+/) ?? [];
  const kept: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? "";
    const [flag, inline] = word.split("=", 2) as [string, string | undefined];
    if (!KEPT_FLAGS[runner].includes(flag)) continue;
    const value = inline ?? words[i + 1];
    if (inline === undefined) i++;
    if (value !== undefined && /^[A-Za-z0-9_./@:-]+$/.test(value)) kept.push(flag, value);
  }
  return kept.length > 0 ? ` ${kept.join(" ")}` : "";
}

function nodeDefault(workTree: string): EnvSpec {
  let pkg: PackageJson = {};
  try {
    pkg = JSON.parse(readRegularFile(path.join(workTree, "package.json")) ?? "{}") as PackageJson;
  } catch {
    /* a malformed package.json: the defaults below still apply */
  }
  const locked = hasFile(workTree, "package-lock.json") || hasFile(workTree, "npm-shrinkwrap.json");
  const base = { ...COMMON, kind: "node" as const, setup: locked ? ["npm ci --no-audit --no-fund"] : [], testArgs: "paths" as const, ids: "names" as const };
  const script = pkg.scripts?.test ?? "";
  const deps = { ...pkg.dependencies, ...pkg.devDependencies };
  if (/\bvitest\b/.test(script)) {
    const flags = scriptRunnerFlags(script, "vitest");
    return { ...base, test: `node_modules/.bin/vitest run${flags} --reporter=default --reporter=junit --outputFile.junit="$GITGOOD_JUNIT"`, log: "none" };
  }
  if (/\bjest\b/.test(script)) {
    const flags = scriptRunnerFlags(script, "jest");
    return "jest-junit" in deps
      ? { ...base, test: `node_modules/.bin/jest${flags} --ci --verbose --reporters=default --reporters=jest-junit`, env: { JEST_JUNIT_OUTPUT_FILE: "$GITGOOD_JUNIT" }, log: "jest" }
      : { ...base, test: `node_modules/.bin/jest${flags} --ci --verbose`, log: "jest" };
  }
  return {
    ...base,
    test: 'node --test --test-reporter=junit --test-reporter-destination="$GITGOOD_JUNIT" --test-reporter=spec --test-reporter-destination=stdout',
    log: "none",
  };
}

function mavenDefault(): EnvSpec {
  const repo = '-Dmaven.repo.local="$GITGOOD_ENV/m2"';
  return {
    ...COMMON,
    kind: "maven",
    setup: [`mvn -B ${repo} -DskipTests test-compile dependency:go-offline`],
    test: `mvn -B -o ${repo} test -DfailIfNoTests=false -Dsurefire.failIfNoSpecifiedTests=false`,
    testArgs: "maven",
    junit: ["target/surefire-reports"],
    ids: "java",
    log: "none",
  };
}

function gradleDefault(workTree: string): EnvSpec {
  const gradle = hasFile(workTree, "gradlew") ? "sh ./gradlew" : "gradle";
  return {
    ...COMMON,
    kind: "gradle",
    setup: [`${gradle} --no-daemon testClasses`],
    test: `${gradle} --no-daemon --offline test`,
    testArgs: "gradle",
    junit: ["build/test-results/test"],
    ids: "java",
    log: "none",
    env: { GRADLE_USER_HOME: "$GITGOOD_ENV/gradle" },
  };
}

const PYTHON_MARKERS = ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pytest.ini", "tox.ini", "conftest.py"];

/** The kind of project the work tree holds, or null when nothing tells. */
export function detectKind(workTree: string): EnvKind | null {
  if (hasFile(workTree, "pom.xml")) return "maven";
  if (["build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"].some((f) => hasFile(workTree, f))) return "gradle";
  if (PYTHON_MARKERS.some((f) => hasFile(workTree, f))) return "python";
  if (hasFile(workTree, "package.json")) return "node";
  return null;
}

/** The built-in spec of a kind of project, tuned to what the work tree holds (Django, SymPy, the Node test runner). */
export function defaultSpec(kind: EnvKind, target: EnvTarget, workTree: string): EnvSpec | null {
  switch (kind) {
    case "python":
      return pythonDefault(target, workTree);
    case "node":
      return nodeDefault(workTree);
    case "maven":
      return mavenDefault();
    case "gradle":
      return gradleDefault(workTree);
    case "custom":
      return null;
  }
}

/**
 * The spec for a target: the user's (by repository and version, `*` as fallback), completed by the
 * built-in default of its kind (the user's `kind`, else the one the work tree shows). A custom kind,
 * or a project nothing identifies, needs the user to give the test command. For a Python project,
 * `projectSetup` (the instance's own set-up and the project's declared test dependencies: pip commands)
 * runs before the default's set-up commands; a user's `setup:` replaces both.
 */
export function resolveEnvSpec(target: EnvTarget, workTree: string, user?: EnvSpecFile | null, projectSetup: readonly string[] = []): EnvSpec {
  const given = userSpecFor(user, target.repo, target.version) ?? {};
  const kind = given.kind ?? detectKind(workTree);
  const base = kind === null ? null : defaultSpec(kind, target, workTree);
  const setup = [...(kind === "python" ? projectSetup : []), ...(base?.setup ?? [])];
  const spec: EnvSpec = { ...COMMON, kind: kind ?? "custom", test: "", testArgs: "paths", ids: "names", log: "none", ...base, setup, ...given };
  if (spec.test.trim() === "") {
    const where = user ? ` in ${user.source}` : "";
    throw new GitGoodError(
      "BAD_ENV_SPEC",
      `no test command for ${target.repo}${target.version ? ` ${target.version}` : ""}: nothing in its work tree says what kind of project it is; give a spec with 'test:'${where || " (--env-spec FILE)"}`,
      { repo: target.repo, version: target.version },
    );
  }
  return spec;
}
