import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { RepoCompletionSample } from "../dataset/sample.js";
import { applyAgentChange, cacheRoot, infrastructureAt, isPassing, outcomeOf, splitPatch, type TestInfrastructure } from "../testenv/index.js";
import type { TestRun } from "../testenv/types.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { applyPatch, checkoutDetached } from "../git/apply.js";
import { requireCommits } from "../git/commits.js";
import { patchBetween } from "../git/diff.js";
import type { Repo } from "../git/repo.js";
import { commitStore } from "../git/store.js";
import { Sandbox } from "../sandbox/sandbox.js";
import { writeOutputFile } from "../util/output.js";
import type { Commit0Options } from "./options.js";
import { completionEnvironment, passingTests, runSuite } from "./tests.js";

/** What the `commit0` scorer records (`scores.commit0`): commit0's evaluation of one repository. */
export interface Commit0Evaluation {
  /** Counted tests that pass (passed or xfail). */
  passed: number;
  /** Counted tests (a counted test the run does not report counts as failed). */
  total: number;
  /** passed / total (0 when there are no counted tests). */
  pass_rate: number;
  /** The counted tests that do not pass, at most FAILED_SHOWN of them. */
  failed: string[];
  /** Seconds the whole suite ran. */
  runtime_s: number;
  /** The evaluated change (the work tree's diff against the skeleton) applied; false when there was none. */
  applied: boolean;
  /** The evaluation's files (tests, test configuration, start-up hooks) the change touched: dropped before the tests ran. */
  tampered: string[];
  /** Where the agent's change reaches for the test run, and signs that the code under test tampered with it (its outcomes are then void). */
  tampering: string[];
  /** The test command, its exit code, whether it ran out of time, and the end of its output. */
  tests: { argv: string[]; exit_code: number | null; timed_out: boolean; log_tail: string } | null;
  environment: { key: string; reused: boolean } | null;
  /** What went wrong when the evaluation itself failed (then nothing is said about the agent). */
  error?: { code: string; message: string };
}

const FAILED_SHOWN = 100;
const LOG_TAIL = 4000;

/** A sandbox at one commit of the source and nothing of its past (its history would hold the implementation). */
export async function sandboxAt(source: Repo, commit: string, label: string, opts: Commit0Options): Promise<Sandbox> {
  const sandbox = await Sandbox.create(source, { label, store: await commitStore(source, commit, 1) });
  try {
    if (opts.isolation) sandbox.isolate(opts.isolation);
    await checkoutDetached(sandbox.repo, commit);
    sandbox.publishFresh();
    return sandbox;
  } catch (err) {
    sandbox.remove();
    throw err;
  }
}

/** The fields a reference run depends on. */
export type ReferenceTask = Pick<RepoCompletionSample["scenario"], "repo" | "reference_commit" | "test" | "setup">;

/**
 * Runs the whole suite at the reference commit, in a sandbox of its own and the task's environment:
 * the tests that pass there are the ones a completion is judged by.
 */
export async function referenceRun(source: Repo, task: ReferenceTask, opts: Commit0Options, signal?: AbortSignal): Promise<TestRun> {
  const sandbox = await sandboxAt(source, task.reference_commit, "commit0-reference", opts);
  try {
    const env = await completionEnvironment(sandbox, task, opts, signal);
    return await runSuite(sandbox, env, task.test.test_dir, opts, signal);
  } finally {
    sandbox.remove();
  }
}

function referenceCache(task: ReferenceTask, opts: Commit0Options): string {
  const key = createHash("sha256")
    .update(JSON.stringify([task.repo, task.reference_commit, task.test.test_dir, task.setup, opts.envSpecFile ?? null]))
    .digest("hex")
    .slice(0, 16);
  return path.join(opts.cacheDir ?? cacheRoot(), "commit0-reference", `${task.repo.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 80)}-${key}.json`);
}

/**
 * The tests a task is judged by: the sample's own list, or (a commit0 file lists none) the tests that
 * pass at the reference commit, found once and cached beside the environments.
 */
export async function countedTests(source: Repo, sample: RepoCompletionSample, opts: Commit0Options, signal?: AbortSignal): Promise<string[]> {
  const sc = sample.scenario;
  if (sc.tests.length > 0) return sc.tests;
  const file = referenceCache(sc, opts);
  try {
    const cached = JSON.parse(readFileSync(file, "utf8")) as { tests?: unknown };
    if (Array.isArray(cached.tests) && cached.tests.every((t) => typeof t === "string")) return cached.tests;
  } catch {
    /* not cached yet */
  }
  await requireCommits(source, [sc.reference_commit]);
  const run = await referenceRun(source, sc, opts, signal);
  if (run.timedOut) throw new GitGoodError("TIMEOUT", `the test suite of ${sc.repo} ran out of time at the reference commit`);
  const tests = passingTests(run);
  mkdirSync(path.dirname(file), { recursive: true });
  writeOutputFile(file, `${JSON.stringify({ tests })}\n`);
  return tests;
}

/** How the counted tests came out in a run (a test the run does not report failed). */
export function tallyCounted(run: TestRun | null, counted: readonly string[]): { passed: number; total: number; failed: string[] } {
  const failed = counted.filter((id) => run === null || !isPassing(outcomeOf(run, id)));
  return { passed: counted.length - failed.length, total: counted.length, failed };
}

/**
 * The reference's version of the evaluation's files, as a patch against the skeleton: the sections of
 * the skeleton → reference diff that touch only such files (read on the source; the evaluation's
 * sandbox never holds the reference's objects, which the code under test could read).
 */
async function referenceTests(source: Repo, task: RepoCompletionSample["scenario"], infra: TestInfrastructure): Promise<string> {
  await requireCommits(source, [task.reference_commit]);
  const whole = await patchBetween(source, task.base_commit, task.reference_commit);
  return splitPatch(whole, (f) => infra.owns(f)).kept;
}

/**
 * commit0's evaluation of a completion: in a fresh sandbox at the skeleton commit the change (a patch
 * against it) is applied without its changes to the evaluation's files (tests, test configuration,
 * start-up hooks: src/testenv/test-infra.ts), which are recorded as `tampered`; those files are put as the
 * reference has them; the whole suite runs in the task's environment, its results read from gitgood's
 * own channel; and the counted tests that pass (passed or xfail; a missing one failed) are counted. A
 * failure of the pipeline itself (the environment, the reference run) is recorded as `error`, never
 * held against the agent.
 */
export async function evaluateCompletion(
  source: Repo,
  sample: RepoCompletionSample,
  patch: string | Buffer,
  opts: Commit0Options = {},
  signal?: AbortSignal,
): Promise<Commit0Evaluation> {
  const sc = sample.scenario;
  const bytes = typeof patch === "string" ? Buffer.from(patch, "utf8") : patch;
  const result: Commit0Evaluation = {
    passed: 0,
    total: sc.tests.length,
    pass_rate: 0,
    failed: [],
    runtime_s: 0,
    applied: false,
    tampered: [],
    tampering: [],
    tests: null,
    environment: null,
  };
  let sandbox: Sandbox | null = null;
  try {
    const counted = await countedTests(source, sample, opts, signal);
    result.total = counted.length;
    sandbox = await sandboxAt(source, sc.base_commit, `${sample.id}-eval`, opts);
    const env = await completionEnvironment(sandbox, sc, opts, signal);
    result.environment = { key: env.key, reused: env.reused };
    const box = sandbox;
    const infra = await infrastructureAt(box, sc.base_commit, sc.test.test_dir === "" ? [] : [`${sc.test.test_dir.replace(/\/+$/, "")}/`]);
    const change = await applyAgentChange(box, sc.base_commit, bytes, infra, async (kept) => {
      const applied = await applyPatch(box.repo, kept, "git apply");
      if (!applied.applied) throw new GitGoodError("INTERNAL", `the completion's change does not apply to its skeleton: ${applied.message}`);
      return true;
    });
    result.applied = change.applied === true && change.changed;
    result.tampered = change.tampered;
    const tests = await referenceTests(source, sc, infra);
    if (tests.trim() !== "") {
      const t = await applyPatch(box.repo, tests, "git apply");
      if (!t.applied) throw new GitGoodError("INTERNAL", `the reference's tests do not apply to the skeleton: ${t.message}`);
    }
    const started = Date.now();
    const run = await runSuite(sandbox, env, sc.test.test_dir, opts, signal);
    result.runtime_s = Math.round((Date.now() - started) / 100) / 10;
    result.tests = { argv: run.argv, exit_code: run.exitCode, timed_out: run.timedOut, log_tail: run.log.slice(-LOG_TAIL) };
    result.tampering = [...change.reach, ...run.tampering];
    // A change that reaches for the test run is judged on nothing that run said.
    const tally = tallyCounted(change.reach.length === 0 ? run : null, counted);
    result.passed = tally.passed;
    result.pass_rate = tally.total === 0 ? 0 : tally.passed / tally.total;
    result.failed = tally.failed.slice(0, FAILED_SHOWN);
    return result;
  } catch (err) {
    const e = toGitGoodError(err);
    result.error = { code: e.code, message: e.message };
    return result;
  } finally {
    sandbox?.remove();
  }
}
