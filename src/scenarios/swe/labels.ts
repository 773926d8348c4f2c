import { arr, field, isObj } from "../shared/loose-read.js";

/** The SWE family's failure labels (docs/failure-labels.md), from the evaluation its scorer recorded. */
export function sweFailureLabels(_final: unknown, scores: Readonly<Record<string, unknown>>): string[] {
  const score = scores["swe"];
  if (!isObj(score)) return [];
  const out: string[] = [];
  const patch = field(score, "patch");
  if (patch === "" && field(score, "patch_source") !== undefined) out.push("no_patch");
  else if (field(score, "patch_applied") === false) out.push("patch_not_applied");
  if (arr(field(score, "tampered")).length > 0) out.push("tests_touched");
  const tests = field(score, "tests");
  if (field(score, "patch_applied") === true) {
    if (tests === null || field(tests, "timed_out") === true || typeof field(score, "log_invalid") === "string") out.push("tests_erroring");
    const status = field(score, "tests_status");
    const failures = arr(field(field(status, "FAIL_TO_PASS"), "failure")).length + arr(field(field(status, "PASS_TO_PASS"), "failure")).length;
    if (failures > 0 && !out.includes("tests_erroring")) out.push("tests_failing");
  }
  return out;
}
