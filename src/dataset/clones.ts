import { existsSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import type { Sample } from "./sample.js";

/**
 * The layout of a clone directory: the repository `owner/repo` lives at `DIR/owner/repo` (as
 * `gitgood dataset repos` makes it) or `DIR/owner/repo.git`. This module is its one definition.
 */

/** Where each sample's repository is: one repository for all, or `DIR/owner/repo` clones. */
export type RepoLocator = { repo: string } | { repos: string };

const NAME_PART = /^(?!\.{1,2}$)[A-Za-z0-9._-]+$/;

/** Splits `owner/repo`, refusing anything that could leave the clone directory. */
export function splitRepositoryName(name: string): { owner: string; repo: string } | null {
  const parts = name.split("/");
  if (parts.length !== 2) return null;
  const [owner, repo] = parts as [string, string];
  return NAME_PART.test(owner) && NAME_PART.test(repo) ? { owner, repo } : null;
}

/** Where `gitgood dataset repos` puts the clone of `name` under `into`; null for a name that is not owner/repo. */
export function clonePath(into: string, name: string): string | null {
  const parts = splitRepositoryName(name);
  return parts ? path.join(path.resolve(into), parts.owner, parts.repo) : null;
}

/** The repository a sample is worked in, or a one-line error saying what is missing. */
export function repositoryPath(where: RepoLocator, sample: Sample): string {
  if ("repo" in where) return where.repo;
  const base = clonePath(where.repos, sample.name);
  if (!base) throw new GitGoodError("BAD_SAMPLE", `sample ${sample.id} names no owner/repo: '${sample.name}'`);
  for (const candidate of [base, `${base}.git`]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new GitGoodError("REPO_NOT_FOUND", `no clone of ${sample.name} under ${where.repos} (expected ${path.relative(path.resolve(where.repos), base)})`, {
    name: sample.name,
  });
}
