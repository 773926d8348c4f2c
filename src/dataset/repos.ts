import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { cloneBare, fetchCommits, objectKinds, type ObjectKind } from "../git/clone.js";
import { Repo } from "../git/repo.js";
import { mapPool } from "../util/pool.js";
import { sampleCommits, type Sample } from "./sample.js";
import { clonePath } from "./clones.js";

export const DEFAULT_URL_PATTERN = "https://github.com/{name}.git";

/** Where and how the repositories a dataset names are cloned. */
export interface FetchReposOptions {
  /** Directory that receives `owner/repo` bare clones. */
  into: string;
  /** Remote URL with `{name}` (owner/repo), or `{owner}` and `{repo}`. */
  urlPattern?: string;
  /** Repositories handled at once. */
  jobs?: number;
  /** Fetch commits a clone lacks by id from the remote (default true). */
  fetchMissing?: boolean;
  /** Called as each repository is done. */
  onRepository?: (outcome: RepositoryOutcome) => void;
}

/** How a repository's clone came to be there: made, made again, kept, or not made. */
export type RepositoryStatus = "cloned" | "recloned" | "present" | "failed";

/** What fetching one repository did: where its clone is, how it got there, and the commits fetched by id. */
export interface RepositoryOutcome {
  name: string;
  path: string;
  url: string;
  /** cloned: new; recloned: a half-made clone of an interrupted run was replaced; present: kept as it was. */
  status: RepositoryStatus;
  /** Commits fetched by id because the clone lacked them. */
  fetched: string[];
  error?: string;
}

/** A commit a sample names that its repository lacks: the field naming it, the id, and what the repository has under it. */
export interface MissingCommit {
  /** The scenario field that names the commit: `merge_commit_hash`, `parents[1]`, `newest_commit`, … */
  field: string;
  commit: string;
  /** What the repository has under that id: `missing`, or the kind of a non-commit object. */
  found: Exclude<ObjectKind, "commit">;
}

/** A sample whose commits could not all be found: its repository is unavailable or lacks commits. */
export interface UnverifiedSample {
  id: string;
  name: string;
  reason: "repository-unavailable" | "missing-commits";
  detail: string;
  missing: MissingCommit[];
}

/** What fetching a dataset's repositories did, one outcome per repository. */
export interface ReposReport {
  repositories: RepositoryOutcome[];
  samples: number;
  verified: number;
  unverified: UnverifiedSample[];
}


export function checkUrlPattern(pattern: string): void {
  if (!pattern.includes("{name}") && !(pattern.includes("{owner}") && pattern.includes("{repo}"))) {
    throw new GitGoodError("BAD_OPTION", `--url '${pattern}' must contain {name}, or {owner} and {repo}`);
  }
}

export function repositoryUrl(pattern: string, name: string): string {
  const [owner = "", repo = ""] = name.split("/");
  return pattern.replaceAll("{name}", name).replaceAll("{owner}", owner).replaceAll("{repo}", repo);
}

/**
 * Puts a complete bare clone at `dest`. A clone is made in a sibling `.repo.incomplete` directory and
 * renamed into place only when git has finished, so an existing `dest` is always complete and a left-over
 * `.incomplete` directory marks an interrupted run: it is removed and the clone made again.
 */
export async function ensureClone(url: string, dest: string): Promise<"cloned" | "recloned" | "present"> {
  if (existsSync(dest)) {
    const repo = await Repo.open(dest).catch(() => null);
    if (!repo || !repo.bare) {
      throw new GitGoodError("NOT_A_CLONE", `${dest} exists but is not a bare git repository; move it away`);
    }
    return "present";
  }
  const parent = path.dirname(dest);
  const temp = path.join(parent, `.${path.basename(dest)}.incomplete`);
  const resumed = existsSync(temp);
  if (resumed) rmSync(temp, { recursive: true, force: true });
  mkdirSync(parent, { recursive: true });
  try {
    await cloneBare(url, temp, parent);
  } catch (err) {
    rmSync(temp, { recursive: true, force: true });
    throw err;
  }
  renameSync(temp, dest);
  return resumed ? "recloned" : "cloned";
}

async function handleRepository(
  name: string,
  samples: readonly Sample[],
  opts: FetchReposOptions,
): Promise<{ outcome: RepositoryOutcome; unverified: UnverifiedSample[] }> {
  const url = repositoryUrl(opts.urlPattern ?? DEFAULT_URL_PATTERN, name);
  const dest = clonePath(opts.into, name) ?? "";
  const outcome: RepositoryOutcome = { name, path: dest, url, status: "failed", fetched: [] };
  const unavailable = (detail: string) =>
    samples.map((s) => ({ id: s.id, name, reason: "repository-unavailable" as const, detail, missing: [] }));
  if (!dest) {
    outcome.error = `'${name}' is not an owner/repo name`;
    return { outcome, unverified: unavailable(outcome.error) };
  }
  try {
    outcome.status = await ensureClone(url, dest);
    const repo = await Repo.open(dest);
    const wanted = samples.flatMap(sampleCommits).map((c) => c.commit);
    let kinds = await objectKinds(repo, wanted);
    const absent = [...kinds].filter(([, k]) => k === "missing").map(([oid]) => oid);
    if (absent.length > 0 && opts.fetchMissing !== false) {
      outcome.fetched = (await fetchCommits(repo, url, absent)).fetched;
      if (outcome.fetched.length > 0) kinds = await objectKinds(repo, wanted);
    }
    const unverified: UnverifiedSample[] = [];
    for (const s of samples) {
      const missing = sampleCommits(s)
        .map(({ field, commit }) => ({ field, commit, found: kinds.get(commit) ?? "missing" }))
        .filter((m): m is MissingCommit => m.found !== "commit");
      if (missing.length > 0) {
        const detail = missing.map((m) => `${m.field} ${m.commit} ${m.found === "missing" ? "missing" : `is a ${m.found}`}`);
        unverified.push({ id: s.id, name, reason: "missing-commits", detail: detail.join("; "), missing });
      }
    }
    return { outcome, unverified };
  } catch (err) {
    outcome.status = "failed";
    outcome.error = toGitGoodError(err).message;
    return { outcome, unverified: unavailable(outcome.error) };
  }
}

/**
 * Clones every repository the samples name into `into/owner/repo` (bare, complete), resuming after an
 * interruption, fetches commits a clone lacks, and verifies that every commit of every sample exists.
 * Problems of one repository or sample are data in the report, never an exception.
 */
export async function fetchRepositories(samples: readonly Sample[], opts: FetchReposOptions): Promise<ReposReport> {
  checkUrlPattern(opts.urlPattern ?? DEFAULT_URL_PATTERN);
  const byRepo = new Map<string, Sample[]>();
  for (const s of samples) {
    const list = byRepo.get(s.name);
    if (list) list.push(s);
    else byRepo.set(s.name, [s]);
  }
  const names = [...byRepo.keys()].sort();
  const outcomes: RepositoryOutcome[] = [];
  const unverified: UnverifiedSample[] = [];
  const work = (name: string) => handleRepository(name, byRepo.get(name) as Sample[], opts);
  for await (const done of mapPool(names, opts.jobs ?? 4, work)) {
    outcomes.push(done.outcome);
    unverified.push(...done.unverified);
    opts.onRepository?.(done.outcome);
  }
  outcomes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  unverified.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { repositories: outcomes, samples: samples.length, verified: samples.length - unverified.length, unverified };
}
