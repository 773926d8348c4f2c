import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { SweSample } from "../dataset/sample.js";
import { GitGoodError } from "../errors.js";
import type { ErrorCode } from "../errors/codes.js";
import { cacheRoot } from "../testenv/index.js";
import type { Repo } from "../git/repo.js";
import { writeOutputFile } from "../util/output.js";
import { evaluatePatch, userSpecOf, type SweEvaluation } from "./evaluate.js";
import type { SweOptions } from "./options.js";

/** Whether an instance can judge an agent at all, and if not, why. */
export interface InstanceValidation {
  valid: boolean;
  reason: string | null;
}

function names(ids: readonly string[]): string {
  const shown = ids.slice(0, 3).join(", ");
  return ids.length > 3 ? `${shown} and ${ids.length - 3} more` : shown;
}

/** What is wrong with an instance, from evaluations of no patch and of its gold patch; null when nothing. */
function validationProblem(sample: SweSample, before: SweEvaluation, gold: SweEvaluation): string | null {
  if (before.error) return `the instance cannot be evaluated at base_commit: ${before.error.message}`;
  if (before.pass_to_pass.failed.length > 0) return `PASS_TO_PASS test(s) fail at base_commit with test_patch: ${names(before.pass_to_pass.failed)}`;
  const failing = new Set(before.fail_to_pass.failed);
  const passing = sample.scenario.FAIL_TO_PASS.filter((id) => !failing.has(id));
  if (passing.length > 0) return `FAIL_TO_PASS test(s) already pass at base_commit with test_patch: ${names(passing)}`;
  if (gold.error) return `the gold patch cannot be evaluated: ${gold.error.message}`;
  if (!gold.patch_applied && sample.scenario.patch.trim() !== "") return "the gold patch does not apply at base_commit";
  if (gold.fail_to_pass.failed.length > 0) return `FAIL_TO_PASS test(s) still fail with the gold patch: ${names(gold.fail_to_pass.failed)}`;
  return null;
}

/** The cache file of an instance's validation: keyed by everything that decides it (the user's spec for it by content, not by file name). */
function cacheFile(sample: SweSample, opts: SweOptions): string {
  const sc = sample.scenario;
  const key = createHash("sha256")
    .update(JSON.stringify([sc.repo, sc.version, sc.base_commit, sc.patch, sc.test_patch, sc.FAIL_TO_PASS, sc.PASS_TO_PASS, userSpecOf(sample, opts)]))
    .digest("hex")
    .slice(0, 16);
  const safe = sc.instance_id.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 80);
  return path.join(opts.cacheDir ?? cacheRoot(), "swe-validation", `${safe}-${key}.json`);
}

function readCached(file: string): InstanceValidation | null {
  try {
    const v = JSON.parse(readFileSync(file, "utf8")) as InstanceValidation;
    return typeof v.valid === "boolean" ? { valid: v.valid, reason: typeof v.reason === "string" ? v.reason : null } : null;
  } catch {
    return null;
  }
}

/**
 * The error of an evaluation that failed for the pipeline itself (an environment that cannot be built, a
 * test_patch that does not apply), as the run's system error: its message names a failed set-up's
 * command and ends with the last lines of its output.
 */
function pipelineError(sample: SweSample, e: NonNullable<SweEvaluation["error"]>): GitGoodError {
  const data = e.data ?? {};
  const tail = typeof data.log_tail === "string" ? data.log_tail.trim().split("\n").slice(-5).join(" | ") : "";
  const message = tail !== "" && !e.message.includes(tail) ? `${e.message} (last lines: ${tail})` : e.message;
  return new GitGoodError(e.code as ErrorCode, `${sample.id}: ${message}`, { ...data, sample: sample.id });
}

/**
 * Checks an instance before any agent works it: at `base_commit` with `test_patch`, every PASS_TO_PASS
 * test passes and every FAIL_TO_PASS test fails; with the gold patch every FAIL_TO_PASS test passes. A
 * verdict is cached per instance beside the environments. A failure of the pipeline itself (the
 * environment's set-up, say) is thrown as an infrastructure error, and not cached: it may pass next
 * time. Returns null for a valid instance, else the reason.
 */
export async function validateInstance(source: Repo, sample: SweSample, opts: SweOptions = {}, signal?: AbortSignal): Promise<InstanceValidation | null> {
  const file = cacheFile(sample, opts);
  const cached = readCached(file);
  if (cached) return cached.valid ? null : cached;
  const before = await evaluatePatch(source, sample, "", opts, signal);
  // The pipeline failing (an environment that cannot be built, say) is the run's error, not the instance's.
  if (before.error && before.error.code !== "PATCH_FAILED") throw pipelineError(sample, before.error);
  const gold = before.error ? before : await evaluatePatch(source, sample, sample.scenario.patch, opts, signal);
  if (gold.error && gold.error.code !== "PATCH_FAILED") throw pipelineError(sample, gold.error);
  const reason = validationProblem(sample, before, gold);
  const verdict: InstanceValidation = { valid: reason === null, reason };
  if (!before.error && !gold.error) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeOutputFile(file, `${JSON.stringify(verdict)}\n`);
  }
  return verdict.valid ? null : verdict;
}
