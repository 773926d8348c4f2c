import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { RepoCompletionSample } from "../dataset/sample.js";
import type { Repo } from "../git/repo.js";
import { cacheRoot } from "../testenv/index.js";
import { writeOutputFile } from "../util/output.js";
import { evaluateCompletion } from "./evaluate.js";
import type { Commit0Options } from "./options.js";

/** How many counted tests the untouched skeleton already passes: the floor a completion's pass rate is read against. */
export interface SkeletonBaseline {
  passed: number;
  total: number;
  /** passed / total (0 when there are no counted tests). */
  pass_rate: number;
}

function cacheFile(sample: RepoCompletionSample, opts: Commit0Options): string {
  const sc = sample.scenario;
  const key = createHash("sha256")
    .update(JSON.stringify([sc.repo, sc.base_commit, sc.reference_commit, sc.test.test_dir, sc.setup, sc.tests, opts.envSpecFile ?? null]))
    .digest("hex")
    .slice(0, 16);
  return path.join(opts.cacheDir ?? cacheRoot(), "commit0-skeleton", `${sc.repo.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 80)}-${key}.json`);
}

function cached(file: string): SkeletonBaseline | null {
  try {
    const v = JSON.parse(readFileSync(file, "utf8")) as Partial<SkeletonBaseline>;
    if (typeof v.passed === "number" && typeof v.total === "number" && typeof v.pass_rate === "number") return { passed: v.passed, total: v.total, pass_rate: v.pass_rate };
  } catch {
    /* not measured yet */
  }
  return null;
}

/**
 * The skeleton's own score: commit0's evaluation of an empty change, made once per task and cached beside the
 * environments (a task is its commits, tests, set-up and environment spec). A skeleton that keeps whole files
 * (commit0 leaves `__init__.py` as it is) passes part of the suite untouched; a completion's pass rate says
 * little without it. Null when the evaluation itself failed (nothing is cached then).
 */
export async function skeletonBaseline(source: Repo, sample: RepoCompletionSample, opts: Commit0Options = {}, signal?: AbortSignal): Promise<SkeletonBaseline | null> {
  const file = cacheFile(sample, opts);
  const known = cached(file);
  if (known) return known;
  const result = await evaluateCompletion(source, sample, Buffer.alloc(0), opts, signal);
  if (result.error || result.tests?.timed_out) return null;
  const baseline = { passed: result.passed, total: result.total, pass_rate: result.pass_rate };
  mkdirSync(path.dirname(file), { recursive: true });
  writeOutputFile(file, `${JSON.stringify(baseline)}\n`);
  return baseline;
}
