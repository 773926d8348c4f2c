import type { EnvSpecFile } from "../testenv/types.js";
import { GitGoodError } from "../errors.js";
import type { ModelClient } from "../model/types.js";
import type { PackCache } from "../git/packs.js";
import type { Isolation } from "../sandbox/isolation.js";
import type { Sandbox } from "../sandbox/sandbox.js";

/** Seconds a test run of an evaluation may take before its process group is killed (`--test-timeout`). */
export const DEFAULT_TEST_TIMEOUT = 900;
/** Seconds building an environment may take (`--setup-timeout`). */
export const DEFAULT_SETUP_TIMEOUT = 1800;
/** Seconds one `run_command` call of the agent may take at most. */
export const DEFAULT_COMMAND_TIMEOUT = 300;

/**
 * The settings of SWE-style tasks: what the agent is shown, how environments are built, how patches are
 * read from text answers, and the time limits. They travel as `settings.swe` through the scenario's
 * set-up options and the scorers' context, so one run's agent and evaluation agree.
 */
export interface SweOptions {
  /** Give the agent the instance's `hints_text` (SWE-bench's default is no hints). */
  hints?: boolean;
  /** An environment spec file (`--env-spec FILE`) that overrides the built-in defaults. */
  envSpecFile?: string;
  /**
   * The configuration file's environment specs (`envs:`), used for an instance that `envSpecFile` has
   * no spec for (neither for its repository nor for `*`): the flag's file wins where it has one.
   */
  envSpecs?: EnvSpecFile | null;
  /** Build environments with an LLM agent (`--env-setup llm`) using this model. */
  envModel?: ModelClient | null;
  /** A model that turns free-text answers into diffs (`--extract-with MODEL`). */
  extractWith?: ModelClient | null;
  testTimeoutSeconds?: number;
  setupTimeoutSeconds?: number;
  commandTimeoutSeconds?: number;
  /** Where environments and instance validations are cached (default: gitgood's cache directory). */
  cacheDir?: string;
  /** How test runs and the agent's commands are isolated (default: the sandbox's default). */
  isolation?: Isolation;
  /** Where evaluation sandboxes' packs are built once and copied from (default: one cache for the process's evaluations). */
  packs?: PackCache | null;
  /** Check each instance (PASS_TO_PASS pass, FAIL_TO_PASS fail, gold fixes) before an agent works it (default true). */
  validate?: boolean;
  /**
   * Shown every sandbox an evaluation or a mining's validation worked in, when it is done with it and
   * before the sandbox is kept for the next or removed (a release build looks in each for its canary).
   */
  watchSandbox?: (sandbox: Sandbox, where: string) => Promise<void>;
}

/** The SWE settings among a scenario's or scorer's settings (none: every default). */
export function sweOptionsOf(settings: Readonly<Record<string, unknown>> | undefined): SweOptions {
  const swe = settings?.swe;
  if (swe === undefined) return {};
  if (swe === null || typeof swe !== "object") throw new GitGoodError("INTERNAL", "settings.swe must be an object of SWE options");
  return swe;
}
