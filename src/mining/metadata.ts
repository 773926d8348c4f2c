import { readFileSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";

/**
 * Repository facts a user may supply with `--metadata FILE`, as a repository search export (the
 * GitHub REST API, or a CSV-to-JSON dump of one) gives them. Every field is optional.
 */
export interface RepositoryMetadata {
  stargazers: number | null;
  license: string | null;
  topics: string | null;
  created_at: string | null;
  language: string | null;
  archived: boolean | null;
  fork: boolean | null;
  contributors: number | null;
  branches: number | null;
  /** Repository size in kilobytes, as the GitHub API reports it. */
  size_kb: number | null;
  /** Time of the last push or update, ISO 8601. */
  pushed_at: string | null;
}

export const EMPTY_METADATA: RepositoryMetadata = {
  stargazers: null,
  license: null,
  topics: null,
  created_at: null,
  language: null,
  archived: null,
  fork: null,
  contributors: null,
  branches: null,
  size_kb: null,
  pushed_at: null,
};

function num(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  if (Array.isArray(v)) return v.length;
  return null;
}

function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() !== "" ? v : null;
}

function bool(v: unknown): boolean | null {
  if (typeof v === "boolean") return v;
  if (v === "true" || v === "True") return true;
  if (v === "false" || v === "False") return false;
  return null;
}

function pick(o: Record<string, unknown>, ...keys: string[]): unknown {
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) return o[k];
  return undefined;
}

/** Normalises the many shapes of repository metadata into RepositoryMetadata. */
export function normalizeMetadata(raw: unknown): RepositoryMetadata {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new GitGoodError("BAD_METADATA", "metadata must be a JSON object");
  }
  const o = raw as Record<string, unknown>;
  const lic = pick(o, "license", "license_spdx", "spdx_id");
  let license: string | null = null;
  if (typeof lic === "string") license = str(lic);
  else if (typeof lic === "object" && lic !== null) {
    const l = lic as Record<string, unknown>;
    license = str(l.spdx_id) ?? str(l.key) ?? str(l.name);
    if (license === "NOASSERTION") license = null;
  }
  const topicsRaw = pick(o, "topics");
  const topics = Array.isArray(topicsRaw)
    ? topicsRaw.filter((t): t is string => typeof t === "string").join(";") || null
    : str(topicsRaw);
  const langRaw = pick(o, "language", "programming_language", "mainLanguage");
  return {
    stargazers: num(pick(o, "stargazers_count", "stargazers", "stars", "stargazerCount")),
    license,
    topics,
    created_at: str(pick(o, "created_at", "createdAt")),
    language: typeof langRaw === "object" && langRaw !== null ? str((langRaw as { name?: unknown }).name) : str(langRaw),
    archived: bool(pick(o, "archived", "isArchived")),
    fork: bool(pick(o, "fork", "isFork")),
    contributors: num(pick(o, "contributors", "contributors_count", "contributorsCount")),
    branches: num(pick(o, "branches", "branches_count", "branchesCount")),
    size_kb: num(pick(o, "size", "size_kb", "diskUsage")),
    pushed_at: str(pick(o, "pushed_at", "pushedAt", "updated_at", "lastCommit", "last_commit")),
  };
}

/** Reads `--metadata FILE`; a missing file or invalid JSON is a one-line error. */
export function readMetadataFile(file: string): RepositoryMetadata {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new GitGoodError("BAD_METADATA", `cannot read metadata file ${file}`, { file: path.resolve(file) });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new GitGoodError("BAD_METADATA", `metadata file ${file} is not valid JSON: ${why}`, { file });
  }
  return normalizeMetadata(raw);
}
