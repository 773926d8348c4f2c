import type { ModelClient } from "../model/types.js";
import type { Sandbox } from "../sandbox/sandbox.js";

/**
 * Environments in which a project's tests run, and what a test run gives back. An environment is
 * described by an EnvSpec (the user's YAML, or a built-in default detected from the work tree), built
 * once per repository × version × spec, cached on disk, and reused read-only by every test run.
 */

/** How one test ended. */
export type TestOutcome = "passed" | "failed" | "error" | "skipped" | "xfail" | "xpass";

export const TEST_OUTCOMES: readonly TestOutcome[] = ["passed", "failed", "error", "skipped", "xfail", "xpass"];

/** passed or xfail count as passing (SWE-bench and commit0 agree); anything else, a missing test included, does not. */
export function isPassing(o: TestOutcome | undefined): boolean {
  return o === "passed" || o === "xfail";
}

/** What kind of project an environment is for; it decides the built-in part of the build. */
export type EnvKind = "python" | "node" | "maven" | "gradle" | "custom";
export const ENV_KINDS: readonly EnvKind[] = ["python", "node", "maven", "gradle", "custom"];

/**
 * How repository-relative test files become arguments of the test command:
 * - `paths`: the files as they are (pytest, SymPy's bin/test, node --test, vitest, jest);
 * - `django`: dotted modules below `tests/` (`tests/a/test_b.py` → `a.test_b`), as Django's runtests.py takes them;
 * - `maven`: one `-Dtest=A,B` with the classes' simple names;
 * - `gradle`: `--tests A --tests B`;
 * - `none`: no arguments (the whole suite runs).
 */
export type TestArgStyle = "paths" | "django" | "maven" | "gradle" | "none";
export const TEST_ARG_STYLES: readonly TestArgStyle[] = ["paths", "django", "maven", "gradle", "none"];

/**
 * How the test ids of JUnit XML results are formed:
 * - `pytest`: `file::Class::name` (the file inferred from the dotted classname when the XML has no `file`);
 * - `java`: `pkg.Class#method` (Surefire, Gradle);
 * - `names`: the enclosing suites and the test's name joined by ` > ` (node --test, Vitest, Jest).
 */
export type IdStyle = "pytest" | "java" | "names";
export const ID_STYLES: readonly IdStyle[] = ["pytest", "java", "names"];

/**
 * Which log parser reads the test command's output (when no JUnit file was written, or for what JUnit
 * lacks): pytest's `-rA` summary, Django's verbose runner, SymPy's `bin/test --verbose`, Jest's
 * `--verbose` tree (ids in `names` style), or none.
 */
export type LogFormat = "pytest" | "django" | "sympy" | "jest" | "none";
export const LOG_FORMATS: readonly LogFormat[] = ["pytest", "django", "sympy", "jest", "none"];

/**
 * Everything needed to build an environment and run tests in it. Commands are shell command lines
 * (run by `sh -c`); they see `$GITGOOD_ENV` (the environment's directory: a virtual environment lives
 * at `$GITGOOD_ENV/venv`, Node's modules at `$GITGOOD_ENV/node_modules`), and test commands also
 * `$GITGOOD_RESULTS` (an empty directory for result files) and `$GITGOOD_JUNIT` (a file in it).
 */
export interface EnvSpec {
  kind: EnvKind;
  /** Python: the interpreter the virtual environment is made from (a name on PATH or a path). */
  python: string;
  /** Commands that build the environment, run once in a copy of the project (its root is the working directory). */
  setup: string[];
  /** Python: `pip install --no-build-isolation --no-deps -e .` after `setup`. */
  editable: boolean;
  /** Commands run in the work tree before every test run (building extensions in place, say). */
  beforeTests: string[];
  /** The test command; the test arguments are appended. */
  test: string;
  testArgs: TestArgStyle;
  /** JUnit XML the test command writes: files or directories relative to the work tree (`$GITGOOD_RESULTS` is always read). */
  junit: string[];
  ids: IdStyle;
  log: LogFormat;
  /** Environment variables for set-up and tests. */
  env: Record<string, string>;
  /** Directories (relative to the work tree) put first on PYTHONPATH for tests, e.g. `src` for a src layout. */
  pythonPath: string[];
  /** Whether set-up commands may use the network (default: what the sandbox's isolation allows). */
  network: boolean | null;
  /** Seconds for the whole set-up and for one test run; null: the caller's. */
  setupTimeout: number | null;
  testTimeout: number | null;
}

/** Which project an environment is for: the repository (`owner/name`) and the dataset's version (null: none). */
export interface EnvTarget {
  repo: string;
  version: string | null;
}

/** Specs by repository, then by version (`*`: every other version); a `*` repository applies to every other one. */
export interface EnvSpecFile {
  /** Where the specs came from (a file path), for messages. */
  source: string;
  repos: Record<string, Record<string, Partial<EnvSpec>>>;
}

/** A built environment, ready for test runs. */
export interface Environment {
  /** `<repo>-<version>-<hash>`: the name of its cache entry, stable for the same target, spec and interpreter. */
  readonly key: string;
  readonly spec: EnvSpec;
  readonly target: EnvTarget;
  /** The cache entry's directory; `envDir` is `$GITGOOD_ENV`. */
  readonly dir: string;
  readonly envDir: string;
  /** Paths test runs must be able to read (the environment, the interpreter's installation), shown read-only. */
  readonly readPaths: readonly string[];
  /** Variables every test run gets (PATH with the environment's programs first, VIRTUAL_ENV, …). */
  readonly vars: Readonly<Record<string, string>>;
  /**
   * Entry-point names of the pytest plugins a test run loads: those the environment asks for (installed in
   * it, or named by its set-up, and what they require), never the rest of what the host has installed.
   */
  readonly pytestPlugins: readonly string[];
  /** True when this came from the cache, false when this call built it. */
  readonly reused: boolean;
}

/** What one run of a test command gave. */
export interface TestRun {
  /** Outcome per test id (in the id style of the environment); a test not in the map did not run. */
  outcomes: Map<string, TestOutcome>;
  /** The end of the command's output (stdout, then stderr). */
  log: string;
  /** The time limit ran out and the command was killed with its process group; no outcome is kept then. */
  timedOut: boolean;
  argv: string[];
  exitCode: number | null;
  /**
   * Where the outcomes came from: `plugin` (gitgood's pytest plugin over a pipe no path names, checked
   * against the log), or `files` (JUnit XML the run wrote, completed by the log: other runners).
   */
  channel: "plugin" | "files";
  /** Signs that the code under test tampered with the test run; when there are any, no outcome is kept. */
  tampering: string[];
}

/** What `prepareEnvironment` needs. */
export interface PrepareOptions {
  /** A sandbox of the project (its work tree is copied for the build; its isolation is used). */
  sandbox: Sandbox;
  /** The project and commit the environment is for (its identity in the cache). */
  target: EnvTarget;
  /** How the environment is built and its tests run. */
  spec: EnvSpec;
  /** Root of gitgood's cache (default: `cacheRoot()`); environments live in its `envs/`. */
  cacheDir?: string;
  /** Seconds for the whole build (the spec's `setupTimeout` wins when it is set). */
  timeoutSeconds: number;
  /** Aborting it stops the build; nothing is kept. */
  signal?: AbortSignal;
  /** Each line of the set-up commands' output, and a line per step. */
  onLog?: (line: string) => void;
}

/** What `runTests` needs besides the sandbox, the environment and the test files. */
export interface RunTestsOptions {
  /** Seconds for the run (the spec's `testTimeout` wins when it is set). */
  timeoutSeconds: number;
  /** Options of the test command put before the test files (`--continue-on-collection-errors`, say). */
  flags?: readonly string[];
  signal?: AbortSignal;
}

/** What `setupEnvironmentWithLlm` needs. */
export interface LlmSetupOptions {
  sandbox: Sandbox;
  target: EnvTarget;
  model: ModelClient;
  /** A start for the spec (kind, test command); default: the built-in default the work tree suggests. */
  spec?: EnvSpec;
  /** Tool calls the model may make (default 30); replies without one count too. */
  maxSteps?: number;
  /** Seconds per command (default 600). */
  commandTimeoutSeconds?: number;
  cacheDir?: string;
  /** Whether the environment works for the caller (runs the tests it names, say); the model is told when it does not. */
  verify: (env: Environment) => Promise<boolean>;
  /** Where to write the spec (YAML) of the commands that worked. */
  saveSpecTo?: string;
  signal?: AbortSignal;
  /** Each line of the set-up's output, and a line per step. */
  onLog?: (line: string) => void;
}

/** What `setupEnvironmentWithLlm` gives: the verified environment and the spec that rebuilds it. */
export interface LlmSetupResult {
  environment: Environment;
  spec: EnvSpec;
  /** The spec as a YAML env spec file for the target. */
  yaml: string;
  /** Tool calls the model made. */
  steps: number;
}
