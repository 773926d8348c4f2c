import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { SweSample } from "../dataset/sample.js";
import {
  applyAgentChange,
  cacheRoot,
  infrastructureAt,
  declaredTestDependencies,
  findInterpreter,
  isPassing,
  loadEnvSpecFile,
  specFileFor,
  userSpecFor,
  outcomeOf,
  prepareEnvironment,
  resolveEnvSpec,
  runTests,
  setupEnvironmentWithLlm,
} from "../testenv/index.js";
import type { EnvSpec, EnvSpecFile, EnvTarget, Environment, TestRun } from "../testenv/types.js";
import { GitGoodError, isGitGoodError, toGitGoodError } from "../errors.js";
import { GIT_APPLY_STRATEGIES, applyPatch, checkoutDetached, resetPaths } from "../git/apply.js";
import type { Repo } from "../git/repo.js";
import { readIndexFile } from "../git/index-file.js";
import type { PackCache } from "../git/packs.js";
import { commitStore, type HistoryDepth, type StorePlan } from "../git/store.js";
import { runPackCache } from "../sandbox/packs.js";
import { sandboxRoot } from "../sandbox/sweep.js";
import { isolates } from "../sandbox/isolation.js";
import { Sandbox } from "../sandbox/sandbox.js";
import { diffFiles, diffPaths } from "../util/unified-diff.js";
import { DEFAULT_SETUP_TIMEOUT, DEFAULT_TEST_TIMEOUT, type SweOptions } from "./options.js";
import { sweResolution, sweStatus, type SweResolution, type SweStatus, type TestTally } from "./status.js";
import { sanityProblem } from "./sanity.js";
import { DEFAULT_PYTHON } from "../testenv/defaults.js";
import { at } from "../util/at.js";

/** The last strategy, run through the sandbox's exec: it is not git. */
const PATCH_FUZZ_STRATEGY = "patch -p1 --fuzz=3";
/** The ways SWE-style evaluation tries to apply a patch, in order: the `git apply` variants, then `patch -p1 --fuzz=3`. */
export const APPLY_STRATEGIES = [...GIT_APPLY_STRATEGIES, PATCH_FUZZ_STRATEGY] as const;
/** One of `APPLY_STRATEGIES`: the command that applied a patch. */
export type ApplyStrategy = (typeof APPLY_STRATEGIES)[number];

/** What the `swe` scorer records (`scores.swe`): the fields the report reads, and facts for people. */
export interface SweEvaluation {
  status: SweStatus;
  resolution: SweResolution;
  fail_to_pass: TestTally;
  pass_to_pass: TestTally;
  /** Which strategy applied the patch (null: none did, or the patch was empty). */
  apply_strategy: ApplyStrategy | null;
  /** Whether the patch applied and changed the project's code (false: it did not apply, or changed nothing). */
  patch_applied: boolean;
  /** The evaluated patch: the agent's change to the project's code, as applied (the evaluation's files dropped). */
  patch: string;
  /** The evaluation's files (tests, test configuration, start-up hooks) the agent's patch changed: dropped before the tests ran. */
  tampered: string[];
  /** Where the agent's change reaches for the test run, and signs that the code under test tampered with it (its outcomes are then void). */
  tampering: string[];
  /** As SWE-bench's per-instance report.json: each list's tests that passed and failed. */
  tests_status: { FAIL_TO_PASS: { success: string[]; failure: string[] }; PASS_TO_PASS: { success: string[]; failure: string[] } };
  /** The test command, its exit code, whether it ran out of time, where its outcomes came from, and the end of its output. */
  tests: { argv: string[]; exit_code: number | null; timed_out: boolean; channel: "plugin" | "files"; log_tail: string } | null;
  /** Why the test log cannot be trusted (the suite never ran; a failing exit with no failure parsed): every test then failed. */
  log_invalid: string | null;
  /** The environment used (its cache key) and whether it came from the cache. */
  environment: { key: string; reused: boolean } | null;
  /** Seconds each phase of the evaluation took. */
  timings: { environment_s: number; apply_s: number; tests_s: number };
  /** What went wrong when the status is `error` (with the error's data: a failed set-up's command and output). */
  error?: { code: string; message: string; data?: Record<string, unknown> };
}

/** A test run's log kept in a result: its end, where the failures are. */
const LOG_TAIL = 4000;

/** The environment target of an instance: its repository and version. */
export function envTarget(sample: SweSample): EnvTarget {
  return { repo: sample.scenario.repo, version: sample.scenario.version };
}

/**
 * The pack cache of this process's evaluations when the options name none: a validation's two evaluations
 * and the attempt's share their base's pack, built once. It lives under the sandbox root (where no agent
 * looks, as a run's packs do) and goes at process exit; every sandbox gets a copy, never a link.
 */
let processPacks: { root: string; cache: PackCache } | null = null;

function evaluationPacks(opts: SweOptions): PackCache {
  if (opts.packs) return opts.packs;
  // A new one where the sandbox root moved or someone removed the old one's directory.
  const root = sandboxRoot();
  if (processPacks === null || processPacks.root !== root || !existsSync(processPacks.cache.dir)) processPacks = { root, cache: runPackCache(root).cache };
  return processPacks.cache;
}

/** A store to install and the pack cache its packs come from. */
interface SharedStore {
  store: StorePlan;
  packs: PackCache;
}

/**
 * The stores this process's SWE attempts were set up with, by source and `base_commit`, most recent last:
 * an evaluation (or validation) of that base installs the same store from the same pack cache, so the
 * base is packed once for the attempt and its evaluation, not again at depth 1. The pack is built by
 * gitgood from the source when the attempt's sandbox is made, before any agent runs, and every sandbox
 * gets a copy of it: nothing an agent writes reaches it. A deeper past is as answer-free as depth 1
 * (the commit and what came before it, never the fix).
 */
const attemptStores = new Map<string, SharedStore>();
const ATTEMPT_STORES = 64;

function storeKey(source: Repo, base: string): string {
  return JSON.stringify([source.objectsDir, base]);
}

/**
 * Offers the store an attempt's sandbox at `base` is made with (from `packs`) to the evaluations of that
 * base in this process. A full history is not offered: evaluations keep to one commit rather than copy
 * a whole project's past into every evaluation sandbox.
 */
export function shareAttemptStore(source: Repo, base: string, store: StorePlan, packs: PackCache, depth: HistoryDepth): void {
  if (depth === "full") return;
  const key = storeKey(source, base);
  attemptStores.delete(key);
  attemptStores.set(key, { store, packs });
  for (const oldest of attemptStores.keys()) {
    if (attemptStores.size <= ATTEMPT_STORES) break;
    attemptStores.delete(oldest);
  }
}

/** The store of an evaluation at `base`: an attempt's where one was offered (its pack cache still there), else the commit alone from the evaluations' cache. */
async function evaluationStore(source: Repo, base: string, opts: SweOptions): Promise<SharedStore> {
  const shared = attemptStores.get(storeKey(source, base));
  if (shared && existsSync(shared.packs.dir)) return shared;
  return { store: await commitStore(source, base, 1), packs: evaluationPacks(opts) };
}

/** Makes a new sandbox at `base_commit` (answer-free: no later commit), with the options' isolation. */
export async function sandboxAt(source: Repo, sample: SweSample, label: string, opts: SweOptions): Promise<Sandbox> {
  const base = sample.scenario.base_commit;
  const { store, packs } = await evaluationStore(source, base, opts);
  const sandbox = await Sandbox.create(source, { label, store, packs });
  try {
    if (opts.isolation) sandbox.isolate(opts.isolation);
    await checkoutDetached(sandbox.repo, base);
    sandbox.publishFresh();
    return sandbox;
  } catch (err) {
    sandbox.remove();
    throw err;
  }
}

/**
 * Evaluation sandboxes that finished an evaluation cleanly, kept idle for the next evaluation of the same
 * project and environment target under the same isolation and sandbox root: renewed for its instance's
 * `base_commit` (`Sandbox.renew`: the store replaced, the work tree cleaned and checked out by git), never
 * made again. One is kept per key, a few keys at most; the process's exit removes them.
 */
const idleSandboxes = new Map<string, Sandbox>();
const IDLE_SANDBOXES = 4;

function idleKey(source: Repo, sample: SweSample, opts: SweOptions): string {
  return JSON.stringify([sandboxRoot(), source.gitDir, sample.scenario.repo, sample.scenario.version, opts.isolation ?? null]);
}

/** A sandbox at `base_commit` for an evaluation: an idle one of its key renewed where there is one, else a new one. */
async function evaluationSandbox(source: Repo, sample: SweSample, opts: SweOptions): Promise<Sandbox> {
  const key = idleKey(source, sample, opts);
  const idle = idleSandboxes.get(key);
  if (idle) {
    idleSandboxes.delete(key);
    try {
      const base = sample.scenario.base_commit;
      const { store, packs } = await evaluationStore(source, base, opts);
      if (await idle.renew(source, store, packs, base)) {
        idle.publishFresh();
        return idle;
      }
    } catch {
      // A sandbox that cannot be renewed is not used: a new one is made as if there were none.
    }
    idle.remove();
  }
  return sandboxAt(source, sample, `${sample.id}-eval`, opts);
}

/** Keeps a sandbox whose evaluation finished cleanly for the next one of its key (one per key); removes any other. */
function releaseEvaluationSandbox(sandbox: Sandbox, source: Repo, sample: SweSample, opts: SweOptions, clean: boolean): void {
  const key = idleKey(source, sample, opts);
  // Tests that ran unjailed could have written anywhere, gitgood's own git directory included: that sandbox goes.
  if (!clean || sandbox.isRemoved || sandbox.limitHit !== null || !isolates(sandbox.isolation) || idleSandboxes.has(key)) {
    sandbox.remove();
    return;
  }
  if (idleSandboxes.size >= IDLE_SANDBOXES) {
    const [oldest] = idleSandboxes;
    if (oldest) {
      idleSandboxes.delete(oldest[0]);
      oldest[1].remove();
    }
  }
  idleSandboxes.set(key, sandbox);
}

/** Removes the idle evaluation sandboxes this process keeps (they go at its exit otherwise). */
export function removeIdleEvaluationSandboxes(): void {
  for (const sandbox of idleSandboxes.values()) sandbox.remove();
  idleSandboxes.clear();
}

/** Where `--env-setup llm` saves the spec of a repository × version that a model set up (and finds it again). */
function llmSpecFile(sample: SweSample, opts: SweOptions): string {
  const slug = (t: string) => t.replace(/[^A-Za-z0-9._-]+/g, "_");
  return path.join(opts.cacheDir ?? cacheRoot(), "swe-specs", `${slug(sample.scenario.repo)}-${slug(sample.scenario.version ?? "any")}.yaml`);
}

/**
 * Whether an environment works for an instance: in the sandbox (at base_commit) with the gold patch and
 * test_patch applied, every FAIL_TO_PASS and PASS_TO_PASS test passes. The tree is put back afterwards.
 */
async function goldPasses(sandbox: Sandbox, sample: SweSample, env: Environment, opts: SweOptions, signal?: AbortSignal): Promise<boolean> {
  const sc = sample.scenario;
  const touched = [...new Set([...diffPaths(sc.patch), ...diffPaths(sc.test_patch)])];
  try {
    if (!(await applyPatch(sandbox.repo, sc.patch, "git apply")).applied) return false;
    if (sc.test_patch.trim() !== "" && !(await applyPatch(sandbox.repo, sc.test_patch, "git apply")).applied) return false;
    const run = await runTests(sandbox, env, testFilesOf(sc.test_patch), { timeoutSeconds: opts.testTimeoutSeconds ?? DEFAULT_TEST_TIMEOUT, signal });
    return tally(run, sc.FAIL_TO_PASS).failed.length === 0 && tally(run, sc.PASS_TO_PASS).failed.length === 0;
  } finally {
    await checkoutDetached(sandbox.repo, "HEAD");
    await resetPaths(sandbox.repo, touched);
  }
}

/** The spec file that decides a target's environment: `--env-spec FILE` where it has a spec for it, else the configuration's `envs:`. */
function userSpecFile(target: EnvTarget, opts: SweOptions): EnvSpecFile | null {
  return specFileFor([opts.envSpecFile ? loadEnvSpecFile(opts.envSpecFile) : null, opts.envSpecs], target.repo, target.version);
}

/** The user's spec for an instance (from `--env-spec FILE` or the configuration's `envs:`), or null when the built-in default alone applies. */
export function userSpecOf(sample: SweSample, opts: SweOptions): Partial<EnvSpec> | null {
  const target = envTarget(sample);
  return userSpecFor(userSpecFile(target, opts), target.repo, target.version);
}

/**
 * The spec of an instance's environment for a sandbox of its project: the one a model found and saved
 * (`--env-setup llm`) alone; else --env-spec FILE's, then the configuration's `envs:`, over the built-in
 * default, whose set-up installs the test dependencies the project declares.
 */
export function sweEnvSpec(sandbox: Sandbox, sample: SweSample, opts: SweOptions): EnvSpec {
  const target = envTarget(sample);
  const saved = opts.envModel ? llmSpecFile(sample, opts) : null;
  const user = saved && existsSync(saved) ? loadEnvSpecFile(saved) : userSpecFile(target, opts);
  return resolveEnvSpec(target, sandbox.workDir, user, declaredTestDependencies(sandbox.workDir));
}

/**
 * The interpreter an instance's environment will be made with, as far as the spec and the sample say
 * without a work tree: the spec's kind, else the project's language, must be Python (the kind a work tree
 * decides is only a guess here), and the spec's `python` names it, else the default. Null otherwise.
 */
export function likelyInterpreter(sample: SweSample, opts: SweOptions): string | null {
  let given: Partial<EnvSpec>;
  try {
    given = userSpecOf(sample, opts) ?? {};
  } catch {
    return null;
  }
  const python = given.kind !== undefined ? given.kind === "python" : sample.programming_language?.toLowerCase() === "python";
  return python ? (given.python ?? DEFAULT_PYTHON) : null;
}

/**
 * Starts asking for the Python interpreter an instance's evaluation will need (the environment's cache key
 * names it, and a launcher such as pyenv's shims takes tens of processes to answer), so that the attempt's
 * own work goes on meanwhile. The question does not depend on the instance's files (it runs the
 * interpreter in the temporary directory): without `sandbox` it is asked as soon as the spec and the
 * sample name a Python project, before the attempt has a work tree; with `sandbox` (one at the
 * instance's `base_commit`) for the interpreter the environment's spec resolves to there. The answer is
 * kept for the process, so asking twice starts one question; a failure here is left to the evaluation,
 * which asks again and reports it.
 */
export function askInterpreterEarly(sample: SweSample, opts: SweOptions, sandbox?: Sandbox): void {
  if (opts.envModel) return;
  let python: string | null;
  try {
    const spec = sandbox ? sweEnvSpec(sandbox, sample, opts) : null;
    python = spec ? (spec.kind === "python" ? spec.python : null) : likelyInterpreter(sample, opts);
  } catch {
    return;
  }
  if (python !== null) findInterpreter(python).catch(() => undefined);
}

/**
 * Builds (or takes from the cache) the environment of an instance for a sandbox of its project: from the
 * spec (`--env-spec FILE`, else the configuration's `envs:`, over the built-in defaults, which install the test
 * dependencies the project declares), or with `envModel` (`--env-setup llm`) by a model whose
 * result must make the gold patch pass before it is used; the spec it found is saved and reused for the
 * repository × version.
 */
export async function environmentFor(sandbox: Sandbox, sample: SweSample, opts: SweOptions, signal?: AbortSignal): Promise<Environment> {
  const target = envTarget(sample);
  const saved = opts.envModel ? llmSpecFile(sample, opts) : null;
  if (opts.envModel && saved && !existsSync(saved)) {
    mkdirSync(path.dirname(saved), { recursive: true });
    const result = await setupEnvironmentWithLlm({
      sandbox,
      target,
      model: opts.envModel,
      cacheDir: opts.cacheDir,
      verify: (env) => goldPasses(sandbox, sample, env, opts, signal),
      saveSpecTo: saved,
      signal,
    });
    return result.environment;
  }
  const spec = sweEnvSpec(sandbox, sample, opts);
  return prepareEnvironment({
    sandbox,
    target,
    spec,
    cacheDir: opts.cacheDir,
    timeoutSeconds: opts.setupTimeoutSeconds ?? DEFAULT_SETUP_TIMEOUT,
    signal,
  });
}

/** Runs `patch -p1 --fuzz=3` in the sandbox: a dry run first, so a patch that fails in part changes nothing. */
async function applyWithPatch(sandbox: Sandbox, patch: Buffer, signal?: AbortSignal): Promise<boolean> {
  const args = ["patch", "-p1", "--fuzz=3", "--batch", "--forward", "--no-backup-if-mismatch", "--reject-file=-", "--quiet"];
  const dry = await sandbox.exec([...args, "--dry-run"], { input: patch, timeout: 60, signal });
  if (dry.code !== 0) return false;
  const real = await sandbox.exec(args, { input: patch, timeout: 60, signal });
  return real.code === 0;
}

/**
 * Applies a patch with each strategy in turn (`git apply`, `git apply --ignore-whitespace`, `git apply
 * --3way`, `patch -p1 --fuzz=3`). Returns the strategy that applied it, or null (the tree then is as at
 * `base_commit`). A refused `git apply` without `--3way` changes nothing, and `patch` is tried dry first,
 * so only a `--3way` that stopped on conflicts leaves something to put back before the next strategy.
 */
export async function applyWithStrategies(sandbox: Sandbox, patch: Buffer, signal?: AbortSignal): Promise<ApplyStrategy | null> {
  if (patch.toString("latin1").trim() === "") return null;
  const touched = diffPaths(patch.toString("latin1"));
  // A path outside the repository makes the whole patch the agent's unapplicable one.
  if (touched.some((f) => !insideRepository(f))) return null;
  for (const strategy of APPLY_STRATEGIES) {
    const applied =
      strategy === PATCH_FUZZ_STRATEGY
        ? await applyWithPatch(sandbox, patch, signal)
        : (await applyPatch(sandbox.repo, patch, strategy)).applied;
    if (applied) return strategy;
    if (strategy === "git apply --3way") await resetPaths(sandbox.repo, touched);
  }
  return null;
}

/** Whether a patch's path stays inside the repository: relative, with no `..` part. */
export function insideRepository(file: string): boolean {
  return file !== "" && !path.posix.isAbsolute(file) && !/^[A-Za-z]:/.test(file) && !file.split(/[\\/]/).includes("..");
}

/**
 * How a list of dataset test ids came out in a run: a test missing from the results failed. With
 * `skippedKept` (PASS_TO_PASS, as SWE-bench's grading v5 counts it), a skipped test is kept, not failed.
 */
export function tally(run: TestRun | null, ids: readonly string[], skippedKept = false): TestTally {
  const failed = ids.filter((id) => {
    if (run === null) return true;
    const o = outcomeOf(run, id);
    return !(isPassing(o) || (skippedKept && o === "skipped"));
  });
  return { passed: ids.length - failed.length, total: ids.length, failed };
}

function seconds(since: number): number {
  return Math.round((Date.now() - since) / 100) / 10;
}

function testsStatus(ids: readonly string[], t: TestTally): { success: string[]; failure: string[] } {
  const failed = new Set(t.failed);
  return { success: ids.filter((id) => !failed.has(id)), failure: [...t.failed] };
}

/**
 * The test files to run: those `test_patch` adds or changes (as the SWE-bench harness runs them), and
 * the files that test ids in pytest's form (`file::name`) name when `exists` finds them, so that a
 * PASS_TO_PASS test in a file the test patch leaves alone runs too.
 */
export function testFilesOf(testPatch: string, ids: readonly string[] = [], exists: (file: string) => boolean = () => false): string[] {
  const files = new Set(diffFiles(testPatch).flatMap((f) => (f.new === null ? [] : [f.new])));
  for (const id of ids) {
    const file = at(id.split("::"), 0);
    if (id.includes("::") && !files.has(file) && exists(file)) files.add(file);
  }
  return [...files].sort();
}

function patchText(patch: Buffer): string {
  const text = patch.toString("utf8");
  return Buffer.from(text, "utf8").equals(patch) ? text : patch.toString("latin1");
}

/**
 * Evaluates a patch on an instance as the SWE-bench harness does (grading v5), without its green agent's
 * defects: in a fresh sandbox at `base_commit` the agent's change to the project's code is applied by the
 * first strategy that takes it (the tree reset between tries); its changes to the evaluation's files
 * (test files, test configuration, start-up hooks: src/testenv/test-infra.ts) are dropped and recorded as
 * `tampered`; the files `test_patch` touches are reset and `test_patch` applied; the test files it touches
 * run in the instance's environment, their results read from gitgood's own channel; FAIL_TO_PASS and
 * PASS_TO_PASS are looked up (missing = failed; a skipped PASS_TO_PASS test is kept; an empty list counts
 * as all passed). A patch that does not apply, or changes nothing, is `no_op` and never resolved (the
 * tests still run, on the untouched tree). A failure of the pipeline itself (the environment, a
 * test_patch that does not apply) is status `error`, never the agent's.
 */
export async function evaluatePatch(
  source: Repo,
  sample: SweSample,
  patch: string | Buffer,
  opts: SweOptions = {},
  signal?: AbortSignal,
): Promise<SweEvaluation> {
  const bytes = typeof patch === "string" ? Buffer.from(patch, "utf8") : patch;
  const sc = sample.scenario;
  const result: SweEvaluation = {
    status: "error",
    resolution: "RESOLVED_NO",
    fail_to_pass: tally(null, sc.FAIL_TO_PASS),
    pass_to_pass: tally(null, sc.PASS_TO_PASS),
    apply_strategy: null,
    patch_applied: false,
    patch: patchText(bytes),
    tampered: [],
    tampering: [],
    tests_status: { FAIL_TO_PASS: { success: [], failure: [...sc.FAIL_TO_PASS] }, PASS_TO_PASS: { success: [], failure: [...sc.PASS_TO_PASS] } },
    tests: null,
    log_invalid: null,
    environment: null,
    timings: { environment_s: 0, apply_s: 0, tests_s: 0 },
  };
  let sandbox: Sandbox | null = null;
  // Whether the evaluation ran to its end, its tests neither out of time nor cancelled: only then is its sandbox kept for the next.
  let clean = false;
  try {
    let started = Date.now();
    sandbox = await evaluationSandbox(source, sample, opts);
    // The entries of base_commit, from the index its checkout just wrote (null where it cannot be read here).
    const baseIndex = readIndexFile(sandbox.ownGitDir);
    const env = await environmentFor(sandbox, sample, opts, signal);
    result.environment = { key: env.key, reused: env.reused };
    result.timings.environment_s = seconds(started);
    started = Date.now();
    const box = sandbox;
    const infra = await infrastructureAt(box, sc.base_commit, diffPaths(sc.test_patch));
    const change = await applyAgentChange(box, sc.base_commit, bytes, infra, (kept) => applyWithStrategies(box, kept, signal));
    result.apply_strategy = change.applied;
    result.tampered = change.tampered;
    result.patch = patchText(Buffer.from(change.evaluated, "latin1"));
    result.patch_applied = change.applied !== null && change.changed;
    await resetPaths(sandbox.repo, diffPaths(sc.test_patch), baseIndex ?? undefined, change.paths ?? undefined);
    if (sc.test_patch.trim() !== "") {
      const t = await applyPatch(sandbox.repo, sc.test_patch, "git apply");
      if (!t.applied) throw new GitGoodError("PATCH_FAILED", `the test_patch of ${sample.id} does not apply: ${t.message}`, { sample: sample.id });
    }
    result.timings.apply_s = seconds(started);
    started = Date.now();
    const work = sandbox.workDir;
    const inTree = (file: string): boolean => insideRepository(file) && existsSync(path.join(work, file));
    const run = await runTests(sandbox, env, testFilesOf(sc.test_patch, [...sc.FAIL_TO_PASS, ...sc.PASS_TO_PASS], inTree), {
      timeoutSeconds: opts.testTimeoutSeconds ?? DEFAULT_TEST_TIMEOUT,
      signal,
    });
    result.timings.tests_s = seconds(started);
    result.tests = { argv: run.argv, exit_code: run.exitCode, timed_out: run.timedOut, channel: run.channel, log_tail: run.log.slice(-LOG_TAIL) };
    result.tampering = [...change.reach, ...run.tampering];
    result.log_invalid = run.timedOut ? null : sanityProblem(run, env.spec.log);
    // A change that reaches for the test run is judged on nothing that run said.
    const judged = result.log_invalid === null && change.reach.length === 0 ? run : null;
    result.fail_to_pass = tally(judged, sc.FAIL_TO_PASS);
    result.pass_to_pass = tally(judged, sc.PASS_TO_PASS, true);
    result.tests_status = {
      FAIL_TO_PASS: testsStatus(sc.FAIL_TO_PASS, result.fail_to_pass),
      PASS_TO_PASS: testsStatus(sc.PASS_TO_PASS, result.pass_to_pass),
    };
    result.status = sweStatus(result.patch_applied, result.fail_to_pass, result.pass_to_pass);
    result.resolution = sweResolution(result.patch_applied, result.fail_to_pass, result.pass_to_pass);
    clean = !run.timedOut && signal?.aborted !== true;
    return result;
  } catch (err) {
    const e = toGitGoodError(err);
    result.status = "error";
    result.resolution = "RESOLVED_NO";
    result.error = { code: e.code, message: e.message, ...(isGitGoodError(err) && Object.keys(e.data).length > 0 ? { data: e.data } : {}) };
    return result;
  } finally {
    if (sandbox) {
      await opts.watchSandbox?.(sandbox, `evaluation sandbox of ${sample.id}`);
      releaseEvaluationSandbox(sandbox, source, sample, opts, clean);
    }
  }
}
