import type { RecordImporter } from "../dataset/importer.js";
import { LANGUAGE_DISPLAY, LANGUAGE_EXTENSIONS } from "../dataset/languages.js";
import { changedLines, diffFiles } from "../util/unified-diff.js";
import type { NormalizeResult } from "../dataset/normalize.js";
import { SweSampleSchema, bareRepositoryFields, type Difficulty, type SweSample } from "../dataset/sample.js";

/** The columns of a SWE-bench instance, in the published order (`difficulty`: SWE-bench Verified's annotation). */
const SWE_COLUMNS = [
  "repo",
  "instance_id",
  "base_commit",
  "patch",
  "test_patch",
  "problem_statement",
  "hints_text",
  "created_at",
  "version",
  "FAIL_TO_PASS",
  "PASS_TO_PASS",
  "environment_setup_commit",
  "difficulty",
] as const;

/** Whether a dataset record is a SWE-bench instance (rather than a GitGoodBench sample). */
export function isSweRecord(record: Record<string, unknown>): boolean {
  return typeof record.instance_id === "string" && "base_commit" in record && !("sample_type" in record);
}

class Problem extends Error {}

function missing(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === "number" && Number.isNaN(v));
}

function text(field: string, v: unknown, required: boolean): string | null {
  if (missing(v)) {
    if (required) throw new Problem(`${field}: missing`);
    return null;
  }
  if (v instanceof Date) return v.toISOString().replace(/\.000Z$/, "Z");
  if (typeof v !== "string") throw new Problem(`${field}: expected text, got ${Array.isArray(v) ? "a list" : typeof v}`);
  if (required && v.trim() === "") throw new Problem(`${field}: missing`);
  return v;
}

/** A list of test ids: a list, or (as in the published files) a JSON string holding one. */
function testList(field: string, v: unknown): string[] {
  if (missing(v)) return [];
  let value = v;
  if (typeof v === "string") {
    if (v.trim() === "") return [];
    try {
      value = JSON.parse(v);
    } catch {
      throw new Problem(`${field}: not a JSON list of test ids`);
    }
  }
  if (!Array.isArray(value) || !value.every((t) => typeof t === "string")) throw new Problem(`${field}: expected a list of test ids`);
  return value;
}

/** SWE-bench Verified's time estimates, as gitgood's difficulties. */
const ANNOTATED: ReadonlyArray<readonly [RegExp, Difficulty]> = [
  [/^<\s*15\s*min/i, "easy"],
  [/^15\s*min/i, "medium"],
  [/^1\s*-\s*4\s*hours?/i, "hard"],
  [/^>\s*4\s*hours?/i, "hard"],
];

/**
 * The difficulty of a SWE instance: SWE-bench Verified's annotation when the instance has one ("<15 min
 * fix" easy, "15 min - 1 hour" medium, "1-4 hours" and ">4 hours" hard); otherwise the size of the gold
 * patch: one file and at most 10 changed lines is easy, at most 3 files and 50 lines medium, more is hard.
 */
export function sweDifficulty(annotation: string | null | undefined, goldPatch: string): Difficulty {
  const a = annotation?.trim() ?? "";
  for (const [pattern, d] of ANNOTATED) if (pattern.test(a)) return d;
  const files = diffFiles(goldPatch).length;
  const lines = changedLines(goldPatch);
  if (files <= 1 && lines <= 10) return "easy";
  if (files <= 3 && lines <= 50) return "medium";
  return "hard";
}

/** The language most of the gold patch's files are written in (GitHub's spelling), or null. */
function patchLanguage(goldPatch: string): string | null {
  const counts = new Map<string, number>();
  for (const f of diffFiles(goldPatch)) {
    const file = (f.new ?? f.old ?? "").toLowerCase();
    for (const [lang, exts] of Object.entries(LANGUAGE_EXTENSIONS)) {
      if (exts.some((e) => file.endsWith(e))) counts.set(lang, (counts.get(lang) ?? 0) + 1);
    }
  }
  const best = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  return best ? (LANGUAGE_DISPLAY[best[0]] ?? best[0]) : null;
}

/**
 * A SWE-bench instance record (published JSON, JSONL or Parquet) as a gitgood `swe` sample: the instance
 * fields under `scenario`, `id` = `instance_id`, `name` = `repo`, `difficulty` by `sweDifficulty`, the
 * language from the gold patch's files, the other repository fields unknown (null).
 */
export function normalizeSweRecord(record: Record<string, unknown>): NormalizeResult {
  try {
    const patch = text("patch", record.patch, false) ?? "";
    const annotation = text("difficulty", record.difficulty, false);
    const scenario = {
      instance_id: text("instance_id", record.instance_id, true),
      repo: text("repo", record.repo, true),
      base_commit: text("base_commit", record.base_commit, true),
      patch,
      test_patch: text("test_patch", record.test_patch, false) ?? "",
      problem_statement: text("problem_statement", record.problem_statement, false) ?? "",
      hints_text: text("hints_text", record.hints_text, false) ?? "",
      created_at: text("created_at", record.created_at, false),
      version: missing(record.version) ? null : String(record.version),
      environment_setup_commit: text("environment_setup_commit", record.environment_setup_commit, false),
      FAIL_TO_PASS: testList("FAIL_TO_PASS", record.FAIL_TO_PASS),
      PASS_TO_PASS: testList("PASS_TO_PASS", record.PASS_TO_PASS),
      ...(annotation === null ? {} : { difficulty: annotation }),
    };
    const candidate: SweSample = {
      id: scenario.instance_id as string,
      ...bareRepositoryFields(scenario.repo as string, patchLanguage(patch), scenario.created_at),
      scenario: scenario as SweSample["scenario"],
      sample_type: "swe",
      difficulty: sweDifficulty(annotation, patch),
    };
    const parsed = SweSampleSchema.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue ? issue.path.filter((p) => p !== "scenario").join(".") : "";
      return { ok: false, reason: `${where ? `${where}: ` : ""}${issue?.message ?? "invalid instance"}` };
    }
    return { ok: true, sample: parsed.data };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/** The reader of SWE-bench instance rows, which the SWE family registers with the dataset readers. */
export const SWE_IMPORTER: RecordImporter = {
  name: "swe",
  columns: SWE_COLUMNS,
  detects: isSweRecord,
  normalize: normalizeSweRecord,
  id: (record) => record.instance_id,
};
