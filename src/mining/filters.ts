import { branchAuthorEmails, lastBranchCommitTime } from "../git/history.js";
import { objectStoreKb } from "../git/objects.js";
import type { Repo } from "../git/repo.js";
import { PERMISSIVE_LICENSES } from "./license.js";
import type { RepositoryMetadata } from "./metadata.js";

/** GitGoodBench's repository filters, with the thresholds in one place. */
const FILTER_RULES = {
  maxSizeMb: 400,
  minStars: 1000,
  minBranches: 5,
  minContributors: 5,
  /** Activity counts as recent when the last push (or commit) is at most this many days old. */
  recentDays: 365,
} as const;

/** One repository filter's verdict: the value it saw, what it required, and where the value came from. */
export interface FilterResult {
  filter: "size" | "stars" | "archived" | "fork" | "license" | "branches" | "contributors" | "recent_activity";
  passed: boolean;
  /** The observed value; null when it is unknown (then the filter fails). */
  value: string | number | boolean | null;
  required: string;
  /** Where the value came from. */
  source: "metadata" | "repository" | "unknown";
}

async function contributorCount(repo: Repo): Promise<number> {
  const emails = new Set<string>();
  for await (const email of branchAuthorEmails(repo)) emails.add(email.toLowerCase());
  return emails.size;
}

async function lastCommitTime(repo: Repo): Promise<number | null> {
  const seconds = await lastBranchCommitTime(repo);
  return seconds === null ? null : seconds * 1000;
}

/**
 * Evaluates every filter. Values come from the metadata first, else from the repository where it can
 * tell (size, license, branches, contributors, activity); stars, archived and fork need metadata.
 */
export async function evaluateFilters(
  repo: Repo,
  md: RepositoryMetadata,
  facts: { license: string | null; branchCount: number },
  now: Date = new Date(),
): Promise<FilterResult[]> {
  const r: FilterResult[] = [];
  const sizeKb = md.size_kb ?? (await objectStoreKb(repo));
  const sizeMb = Math.round((sizeKb / 1024) * 10) / 10;
  r.push({
    filter: "size",
    passed: sizeMb <= FILTER_RULES.maxSizeMb,
    value: sizeMb,
    required: `<= ${FILTER_RULES.maxSizeMb} MB`,
    source: md.size_kb !== null ? "metadata" : "repository",
  });
  r.push({
    filter: "stars",
    passed: md.stargazers !== null && md.stargazers >= FILTER_RULES.minStars,
    value: md.stargazers,
    required: `>= ${FILTER_RULES.minStars}`,
    source: md.stargazers !== null ? "metadata" : "unknown",
  });
  for (const [filter, value] of [
    ["archived", md.archived],
    ["fork", md.fork],
  ] as const) {
    r.push({ filter, passed: value === false, value, required: "false", source: value !== null ? "metadata" : "unknown" });
  }
  r.push({
    filter: "license",
    passed: facts.license !== null && PERMISSIVE_LICENSES.includes(facts.license),
    value: facts.license,
    required: `one of ${PERMISSIVE_LICENSES.join(", ")}`,
    source: md.license !== null ? "metadata" : facts.license !== null ? "repository" : "unknown",
  });
  const branches = md.branches ?? facts.branchCount;
  r.push({
    filter: "branches",
    passed: branches >= FILTER_RULES.minBranches,
    value: branches,
    required: `>= ${FILTER_RULES.minBranches}`,
    source: md.branches !== null ? "metadata" : "repository",
  });
  const contributors = md.contributors ?? (await contributorCount(repo));
  r.push({
    filter: "contributors",
    passed: contributors >= FILTER_RULES.minContributors,
    value: contributors,
    required: `>= ${FILTER_RULES.minContributors}`,
    source: md.contributors !== null ? "metadata" : "repository",
  });
  const pushed = md.pushed_at ? Date.parse(md.pushed_at) : await lastCommitTime(repo);
  const known = pushed !== null && Number.isFinite(pushed);
  const ageDays = known ? Math.floor((now.getTime() - pushed) / 86_400_000) : null;
  r.push({
    filter: "recent_activity",
    passed: ageDays !== null && ageDays <= FILTER_RULES.recentDays,
    value: known ? new Date(pushed).toISOString() : null,
    required: `last activity within ${FILTER_RULES.recentDays} days`,
    source: md.pushed_at ? "metadata" : known ? "repository" : "unknown",
  });
  return r;
}
