import type { SweSample } from "../../dataset/sample.js";
import { isPassing, runTests, type EnvSpec, type Environment, type TestRun } from "../../testenv/index.js";
import { toGitGoodError } from "../../errors.js";
import { applyPatch, resetPaths } from "../../git/apply.js";
import { diffPaths } from "../../util/unified-diff.js";
import type { Repo } from "../../git/repo.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { environmentFor, sandboxAt, testFilesOf } from "../evaluate.js";
import { DEFAULT_TEST_TIMEOUT, type SweOptions } from "../options.js";
import type { SweDropReason } from "./reasons.js";
import { at } from "../../util/at.js";

/** Which tests a validation runs: those of the files the test change touches, or the whole suite too. */
export type P2pScope = "touched" | "full";

export interface ValidateOptions {
  /** How often each side runs (the flake gate): a test counts only with the same outcome in every run. */
  runs: number;
  p2p: P2pScope;
  swe: SweOptions;
  signal?: AbortSignal;
}

/** What validating a candidate gave: its test lists, or why it is dropped. */
export type Verdict =
  | { kept: true; FAIL_TO_PASS: string[]; PASS_TO_PASS: string[]; environment: string; spec: EnvSpec; seconds: number; test_seconds: number }
  | { kept: false; reason: SweDropReason; detail: string; seconds: number; test_seconds: number };

/** A test's outcome in one run; a test the run did not report is `missing` (SWE-bench counts it failed). */
type Seen = string;

function outcomesPerTest(runs: readonly TestRun[]): Map<string, Seen[]> {
  const ids = new Set<string>();
  for (const r of runs) for (const id of r.outcomes.keys()) ids.add(id);
  const out = new Map<string, Seen[]>();
  for (const id of ids) out.set(id, runs.map((r) => r.outcomes.get(id) ?? "missing"));
  return out;
}

const passes = (o: Seen): boolean => isPassing(o as never);
const stable = (seen: readonly Seen[]): boolean => seen.every((o) => o === seen[0]);

/**
 * FAIL_TO_PASS and PASS_TO_PASS from repeated runs before (test change only) and after (whole change):
 * only tests with the same outcome in every run of both sides count; FAIL_TO_PASS fail (or are missing)
 * before and pass after, PASS_TO_PASS pass on both sides. `flaky` is true when some test that changed
 * outcome between runs did pass after in some run and not pass before in some run: it might have been a
 * FAIL_TO_PASS test.
 */
function classifyTests(before: readonly TestRun[], after: readonly TestRun[]): { f2p: string[]; p2p: string[]; flaky: boolean; unstable: string[] } {
  const b = outcomesPerTest(before);
  const a = outcomesPerTest(after);
  const missingEverywhere = (n: number): Seen[] => Array.from({ length: n }, () => "missing");
  const f2p: string[] = [];
  const p2p: string[] = [];
  const unstable: string[] = [];
  let flaky = false;
  for (const id of new Set([...b.keys(), ...a.keys()])) {
    const sb = b.get(id) ?? missingEverywhere(before.length);
    const sa = a.get(id) ?? missingEverywhere(after.length);
    if (!stable(sb) || !stable(sa)) {
      unstable.push(id);
      if (sa.some(passes) && sb.some((o) => !passes(o))) flaky = true;
      continue;
    }
    if (!passes(at(sa, 0))) continue;
    (passes(at(sb, 0)) ? p2p : f2p).push(id);
  }
  return { f2p: f2p.sort(), p2p: p2p.sort(), flaky, unstable: unstable.sort() };
}

class Drop extends Error {
  constructor(
    readonly reason: SweDropReason,
    detail: string,
  ) {
    super(detail);
  }
}

/** The drop reason of an environment that could not be had. */
function environmentDrop(err: unknown): Drop {
  const e = toGitGoodError(err);
  if (e.code === "BAD_ENV_SPEC") return new Drop("no_environment", e.message);
  if (e.data.timed_out === true) return new Drop("timeout", e.message);
  if (e.code === "MISSING_COMMIT") return new Drop("missing_objects", e.message);
  return new Drop("build_failed", e.message);
}

/**
 * Validates a drafted instance in a sandbox of its own at `base_commit` (the source repository is only
 * read): the environment the SWE evaluation would use, then the test change applied and the tests it
 * touches run, then the fix applied too and the tests run again. Only when some test failed before and
 * passed after do both sides run `runs` times in all (the fix taken out and put back in between). The verdict carries the
 * stable FAIL_TO_PASS and PASS_TO_PASS lists, or the drop reason. `environments` remembers, for this
 * mining, the versions whose environment could not be had, so that a hanging build is waited for once.
 */
export async function validateCandidate(
  source: Repo,
  sample: SweSample,
  o: ValidateOptions,
  environments: Map<string, Drop>,
): Promise<Verdict> {
  const started = Date.now();
  let testMs = 0;
  const end = (v: Omit<Extract<Verdict, { kept: true }>, "seconds" | "test_seconds"> | Omit<Extract<Verdict, { kept: false }>, "seconds" | "test_seconds">): Verdict => ({
    ...v,
    seconds: (Date.now() - started) / 1000,
    test_seconds: testMs / 1000,
  });
  let sandbox: Sandbox | null = null;
  try {
    try {
      sandbox = await sandboxAt(source, sample, `${sample.id}-mine`, o.swe);
    } catch (err) {
      const e = toGitGoodError(err);
      if (e.code === "MISSING_COMMIT" || e.code === "GIT_FAILED") throw new Drop("missing_objects", e.message);
      throw err;
    }
    const env = await environmentOnce(sandbox, sample, o, environments);
    const sc = sample.scenario;
    const t = await applyPatch(sandbox.repo, sc.test_patch, "git apply");
    if (!t.applied) throw new Drop("patch_failed", `the test change does not apply: ${t.message}`);
    const files = testFilesOf(sc.test_patch);
    // The whole suite only where test ids name their file (pytest): evaluation re-runs those files alone.
    const runFiles = o.p2p === "full" && env.spec.ids === "pytest" ? [] : files;
    const run = async (label: string): Promise<TestRun> => {
      const t0 = Date.now();
      const r = await runTests(sandbox as Sandbox, env, runFiles, { timeoutSeconds: o.swe.testTimeoutSeconds ?? DEFAULT_TEST_TIMEOUT, signal: o.signal });
      testMs += Date.now() - t0;
      if (r.timedOut) throw new Drop("timeout", `a test run ${label} ran out of time`);
      return r;
    };
    const withFix = async (): Promise<void> => {
      const p = await applyPatch((sandbox as Sandbox).repo, sc.patch, "git apply");
      if (!p.applied) throw new Drop("patch_failed", `the fix does not apply over the test change: ${p.message}`);
    };
    const ALONE = "with the test change alone";
    const WHOLE = "with the whole change";
    // One run a side first: most candidates end here (no test fails before and passes after), at a third of the cost.
    const before = [await run(ALONE)];
    await withFix();
    const after = [await run(WHOLE)];
    if (at(after, 0).outcomes.size === 0) {
      const r = at(after, 0);
      const line = r.log.split("\n").find((l) => /error/i.test(l))?.trim() ?? r.log.trim().split("\n").at(-1) ?? "";
      throw new Drop("build_failed", `no test ran with the whole change (exit ${String(r.exitCode)}): ${line.slice(0, 200)}`);
    }
    if (classifyTests(before, after).f2p.length > 0 && o.runs > 1) {
      // The flake gate: the other runs of each side, the fix taken out again for the side without it.
      await resetPaths(sandbox.repo, diffPaths(sc.patch));
      for (let i = 1; i < o.runs; i++) before.push(await run(ALONE));
      await withFix();
      for (let i = 1; i < o.runs; i++) after.push(await run(WHOLE));
    }
    const c = classifyTests(before, after);
    if (c.f2p.length === 0) {
      if (c.flaky) throw new Drop("flaky", `tests changed outcome between runs: ${c.unstable.slice(0, 3).join(", ")}`);
      throw new Drop("no_failing_test", `${c.p2p.length} test(s) pass before and after, none fails before`);
    }
    return end({ kept: true, FAIL_TO_PASS: c.f2p, PASS_TO_PASS: c.p2p, environment: env.key, spec: env.spec });
  } catch (err) {
    if (err instanceof Drop) return end({ kept: false, reason: err.reason, detail: err.message });
    throw err;
  } finally {
    if (sandbox) {
      await o.swe.watchSandbox?.(sandbox, `validation sandbox of ${sample.id}`);
      sandbox.remove();
    }
  }
}

/** The environment of an instance's version, asked for once per mining: later candidates of a version that failed are dropped at once. */
async function environmentOnce(sandbox: Sandbox, sample: SweSample, o: ValidateOptions, environments: Map<string, Drop>): Promise<Environment> {
  const key = sample.scenario.version ?? "";
  const known = environments.get(key);
  if (known) throw new Drop(known.reason, `${known.message} (not built again: an earlier instance of version ${key === "" ? "(none)" : key} failed so)`);
  try {
    return await environmentFor(sandbox, sample, o.swe, o.signal);
  } catch (err) {
    if (toGitGoodError(err).code === "ABORTED") throw err;
    const drop = environmentDrop(err);
    environments.set(key, drop);
    throw drop;
  }
}

export type { Drop as EnvironmentDrop };
