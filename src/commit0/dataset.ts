import type { RecordImporter } from "../dataset/importer.js";
import type { NormalizeResult } from "../dataset/normalize.js";
import { parsePythonLiteral } from "../dataset/pyliteral.js";
import { RepoCompletionSampleSchema, bareRepositoryFields, type Difficulty, type RepoCompletionSample } from "../dataset/sample.js";

/**
 * commit0's instance columns (`original_repo` names the upstream project), plus gitgood's own: the
 * counted `tests` and a `difficulty`, which gitgood's skeleton files carry and commit0's do not.
 */
const COMMIT0_COLUMNS = [
  "instance_id",
  "repo",
  "original_repo",
  "base_commit",
  "reference_commit",
  "setup",
  "test",
  "src_dir",
  "tests",
  "difficulty",
] as const;

/** Whether a dataset record is a commit0 instance (it names a reference commit and a source directory). */
function isCommit0Record(record: Record<string, unknown>): boolean {
  return typeof record.instance_id === "string" && "reference_commit" in record && "src_dir" in record && !("sample_type" in record);
}

class Problem extends Error {}

function missing(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === "number" && Number.isNaN(v));
}

function text(field: string, v: unknown): string {
  if (missing(v)) throw new Problem(`${field}: missing`);
  if (typeof v !== "string") throw new Problem(`${field}: expected text, got ${Array.isArray(v) ? "a list" : typeof v}`);
  return v;
}

/** An object field: an object (JSON, Parquet struct), or text holding one as JSON or as a Python literal. */
function object(field: string, v: unknown): Record<string, unknown> {
  let value = v;
  if (typeof v === "string") {
    try {
      value = JSON.parse(v);
    } catch {
      try {
        value = parsePythonLiteral(v);
      } catch {
        throw new Problem(`${field}: not an object (JSON or a Python dict)`);
      }
    }
  }
  if (missing(value)) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Problem(`${field}: expected an object`);
  return value as Record<string, unknown>;
}

/** The counted tests: a list of test ids, or a JSON string holding one; none when absent. */
function testIds(v: unknown): string[] {
  if (missing(v)) return [];
  let value = v;
  if (typeof v === "string") {
    try {
      value = JSON.parse(v);
    } catch {
      throw new Problem("tests: not a JSON list of test ids");
    }
  }
  if (!Array.isArray(value) || !value.every((t) => typeof t === "string")) throw new Problem("tests: expected a list of test ids");
  return value;
}

/**
 * The difficulty of a repository-completion task from the number of functions its skeleton stubs: up
 * to 20 easy, up to 100 medium, more hard.
 */
export function completionDifficulty(stubbedFunctions: number): Difficulty {
  if (stubbedFunctions <= 20) return "easy";
  if (stubbedFunctions <= 100) return "medium";
  return "hard";
}

/**
 * A commit0 instance as a `repo_completion` sample: `id` is the instance id, `name` the upstream
 * repository (`original_repo`, else `repo`). commit0's files say nothing of difficulty: a row without
 * one is `hard` (each instance is a whole library to rebuild).
 */
export function normalizeCommit0Record(record: Record<string, unknown>): NormalizeResult {
  try {
    const test = object("test", record.test);
    const difficulty = missing(record.difficulty) ? "hard" : text("difficulty", record.difficulty);
    const instance = text("instance_id", record.instance_id);
    const repo = text("repo", record.repo);
    const sample = {
      id: instance,
      ...bareRepositoryFields(missing(record.original_repo) ? repo : text("original_repo", record.original_repo), "Python"),
      difficulty,
      sample_type: "repo_completion",
      scenario: {
        instance_id: instance,
        repo,
        base_commit: text("base_commit", record.base_commit),
        reference_commit: text("reference_commit", record.reference_commit),
        src_dir: missing(record.src_dir) ? "" : text("src_dir", record.src_dir),
        test: { test_cmd: missing(test.test_cmd) ? "pytest" : text("test.test_cmd", test.test_cmd), test_dir: missing(test.test_dir) ? "" : text("test.test_dir", test.test_dir) },
        setup: object("setup", record.setup),
        tests: testIds(record.tests),
      },
    };
    const parsed = RepoCompletionSampleSchema.safeParse(sample);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, reason: `${issue?.path.join(".") ?? "row"}: ${issue?.message ?? "invalid"}` };
    }
    return { ok: true, sample: parsed.data satisfies RepoCompletionSample };
  } catch (err) {
    if (err instanceof Problem) return { ok: false, reason: err.message };
    throw err;
  }
}

/**
 * The reader of commit0 instance rows, which the COMMIT0 family registers. A commit0 instance is a
 * SWE-bench instance too: the family registry lists COMMIT0 after SWE, so this reader is tried first.
 */
export const COMMIT0_IMPORTER: RecordImporter = {
  name: "commit0",
  columns: COMMIT0_COLUMNS,
  detects: isCommit0Record,
  normalize: normalizeCommit0Record,
  id: (record) => record.instance_id,
};
