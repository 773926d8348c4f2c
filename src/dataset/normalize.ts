import { parsePythonLiteral } from "./pyliteral.js";
import { SampleSchema, type Sample } from "./sample.js";

/** The columns of a sample record, in the published order. */
export const SAMPLE_COLUMNS = [
  "id",
  "name",
  "default_branch",
  "license",
  "stargazers",
  "created_at",
  "topics",
  "programming_language",
  "scenario",
  "sample_type",
  "project_size",
  "difficulty",
] as const;

/** A published record made into a sample, or the reason it could not be. */
export type NormalizeResult = { ok: true; sample: Sample } | { ok: false; reason: string };

class RowProblem extends Error {}

function problem(field: string, message: string): never {
  throw new RowProblem(`${field}: ${message}`);
}

/** Null, undefined and NaN all mean "no value" in the published files (pandas writes NaN for missing). */
function isMissing(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === "number" && Number.isNaN(v));
}

function kind(v: unknown): string {
  if (Array.isArray(v)) return "a list";
  if (v instanceof Date) return "a date";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

function requiredText(field: string, v: unknown): string {
  if (isMissing(v) || (typeof v === "string" && v.trim() === "")) problem(field, "missing");
  if (typeof v !== "string") problem(field, `expected text, got ${kind(v)}`);
  return v;
}

/** ISO 8601 with seconds, `Z` for UTC: how GitHub writes times. */
function isoSeconds(d: Date): string {
  if (Number.isNaN(d.getTime())) problem("created_at", "invalid date");
  return d.toISOString().replace(/\.000Z$/, "Z");
}

function optionalText(field: string, v: unknown): string | null {
  if (isMissing(v)) return null;
  if (typeof v === "string") return v;
  if (v instanceof Date) return isoSeconds(v);
  if (field === "topics" && Array.isArray(v) && v.every((t) => typeof t === "string")) return v.join(";");
  return problem(field, `expected text, got ${kind(v)}`);
}

function optionalInteger(field: string, v: unknown): number | null {
  if (isMissing(v)) return null;
  let n: number;
  if (typeof v === "bigint") n = Number(v);
  else if (typeof v === "number") n = v;
  else if (typeof v === "string" && v.trim() === "") return null;
  else if (typeof v === "string" && /^\s*[-+]?\d+(\.0*)?\s*$/.test(v)) n = Number(v.trim());
  else return problem(field, `expected a whole number, got ${typeof v === "string" ? `'${v}'` : kind(v)}`);
  if (!Number.isSafeInteger(n)) problem(field, `expected a whole number, got ${String(v)}`);
  return n;
}

function label(field: string, v: unknown, nullable: boolean): string | null {
  if (isMissing(v) || (typeof v === "string" && v.trim() === "")) {
    return nullable ? null : problem(field, "missing");
  }
  if (typeof v !== "string") return problem(field, `expected text, got ${kind(v)}`);
  return v.trim().toLowerCase();
}

/** Turns values decoded from Parquet or literals into plain JSON values: bigints to numbers, no null keys. */
function plain(field: string, v: unknown): unknown {
  if (typeof v === "bigint") {
    const n = Number(v);
    if (!Number.isSafeInteger(n)) problem(field, `number ${v} is too large`);
    return n;
  }
  if (Array.isArray(v)) return v.map((x, i) => plain(`${field}[${i}]`, x));
  if (v !== null && typeof v === "object" && !(v instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      // A missing optional key may be written as None, null or NaN (a struct column unifies both scenario kinds).
      if (!isMissing(x)) out[k] = plain(`${field}.${k}`, x);
    }
    return out;
  }
  return v;
}

function scenario(v: unknown): unknown {
  if (typeof v === "string") {
    try {
      return plain("scenario", parsePythonLiteral(v));
    } catch (literalError) {
      // gitgood's own files and some JSON exports hold the scenario as JSON text.
      try {
        return plain("scenario", JSON.parse(v));
      } catch {
        return problem("scenario", (literalError as Error).message);
      }
    }
  }
  if (isMissing(v)) return problem("scenario", "missing");
  if (typeof v !== "object" || Array.isArray(v)) return problem("scenario", `expected a dict, got ${kind(v)}`);
  return plain("scenario", v);
}

function firstIssue(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  if (!issue) return "invalid sample";
  const where = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("").replace(/^\./, "");
  return where ? `${where}: ${issue.message}` : issue.message;
}

/**
 * Interprets one record of a published (or gitgood) dataset file as a sample: loose types are
 * normalised (numbers written as text or floats, NaN for missing, topics as a list, the scenario as a
 * Python-literal or JSON string), then the result is validated with the sample schema.
 */
export function normalizeRecord(record: Record<string, unknown>): NormalizeResult {
  try {
    const candidate = {
      id: requiredText("id", record.id),
      name: requiredText("name", record.name),
      default_branch: optionalText("default_branch", record.default_branch),
      license: optionalText("license", record.license),
      stargazers: optionalInteger("stargazers", record.stargazers),
      created_at: optionalText("created_at", record.created_at),
      topics: optionalText("topics", record.topics),
      programming_language: optionalText("programming_language", record.programming_language),
      scenario: scenario(record.scenario),
      sample_type: label("sample_type", record.sample_type, false),
      project_size: label("project_size", record.project_size, true),
      difficulty: label("difficulty", record.difficulty, false),
    };
    const parsed = SampleSchema.safeParse(candidate);
    if (!parsed.success) return { ok: false, reason: firstIssue(parsed.error) };
    return { ok: true, sample: parsed.data };
  } catch (err) {
    if (err instanceof RowProblem) return { ok: false, reason: err.message };
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/** The id of a record, if it has a usable one, for naming it in an error. */
export function recordId(record: Record<string, unknown>): string | null {
  const id = record.id;
  if (typeof id === "string" && id.trim() !== "") return id;
  if (typeof id === "number" || typeof id === "bigint") return String(id);
  return null;
}
