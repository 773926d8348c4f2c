import { GitGoodError } from "../errors.js";
import type { Isolation } from "../sandbox/isolation.js";

/** Seconds one test run (the whole suite, or a file's related tests) may take before it is killed. */
export const DEFAULT_TEST_TIMEOUT = 900;
/** Seconds building one environment may take. */
export const DEFAULT_SETUP_TIMEOUT = 1800;
/** Seconds the compile check of a file may take. */
export const COMPILE_TIMEOUT = 60;
/**
 * Which test files are a source file's related tests, by default: those whose file name holds the
 * source file's stem (the seed Debug Agent's heuristic: `cachetools/func.py` → `tests/test_func.py`).
 */
export const DEFAULT_RELATED_TESTS = "*{stem}*";

/**
 * The settings of repository-completion tasks, for set-up, the tools and the scorer alike: how
 * environments are built, the time limits, and which tests are a file's related tests. They travel as
 * `settings.commit0` through the scenario's set-up options and the scorers' context.
 */
export interface Commit0Options {
  /** An environment spec file (`--env-spec FILE`) over the built-in defaults. */
  envSpecFile?: string;
  testTimeoutSeconds?: number;
  setupTimeoutSeconds?: number;
  /** Where environments and reference runs are cached (default: gitgood's cache directory). */
  cacheDir?: string;
  /** How test runs are isolated (default: the sandbox's). */
  isolation?: Isolation;
  /**
   * A pattern naming a source file's related test files (`--related-tests`): `{stem}` is the source
   * file's name without `.py`, `*` any characters but `/`, `**` any characters. Without a `/` it is
   * matched against a test file's name, with one against its repository path. Default DEFAULT_RELATED_TESTS.
   */
  relatedTests?: string;
}

/** The commit0 settings among a scenario's or scorer's settings (none: every default). */
export function commit0OptionsOf(settings: Readonly<Record<string, unknown>> | undefined): Commit0Options {
  const options = settings?.commit0;
  if (options === undefined) return {};
  if (options === null || typeof options !== "object") throw new GitGoodError("INTERNAL", "settings.commit0 must be an object of commit0 options");
  return options;
}
