import os from "node:os";
import { stringify as stringifyYaml } from "yaml";
import { specToYaml, type EnvSpec } from "../../testenv/index.js";
import { GitGoodError, toGitGoodError } from "../../errors.js";
import { listBranches, readCommitGraph, type Branch } from "../../git/history.js";
import { Repo } from "../../git/repo.js";
import type { ModelClient } from "../../model/types.js";
import type { SweOptions } from "../options.js";
import { folderNameProblem, repositoryName } from "../../mining/repository.js";
import { findCandidates, type SweCandidate } from "./candidates.js";
import { DESCRIBE_PROMPT_VERSION, describeWithModel } from "./describe.js";
import { draftInstance, type MinedInstance } from "./instance.js";
import { countReasons, INFRASTRUCTURE_REASONS, type SweDropReason, type SweReject } from "./reasons.js";
import { VerdictStore } from "./verdicts.js";
import { SWE_LANGUAGES } from "./test-files.js";
import { validateCandidate, type EnvironmentDrop, type P2pScope, type ValidateOptions } from "./validate.js";
import { at } from "../../util/at.js";
import { DEFAULT_SWE_RUNS } from "./flake-gate.js";

const SWE_SUMMARY_SCHEMA_VERSION = 1;

/** The settings of one SWE mining; every one but the repository has a default. */
interface SweMineOptions {
  /** `owner/repo`; default from the origin remote URL, else the folder name. */
  name?: string;
  /** The languages whose changes are candidates (default: those SWE evaluation can test). */
  languages: readonly string[];
  /** A candidate changes at least this many files (default 1). */
  minFiles: number;
  /** A candidate changes at most this many files (default 15). */
  maxFiles: number;
  /** Seconds since the epoch: keep changes committed at or after it. */
  since: number | null;
  /** Seconds since the epoch: keep changes committed at or before it. */
  until: number | null;
  /** Runs of each side (the flake gate). */
  runs: number;
  /** Which passing tests become PASS_TO_PASS: those the change's test files hold, or every test run. */
  p2p: P2pScope;
  /** Validations at once. */
  jobs: number;
  /** Validate at most this many candidates (the newest), null: all. */
  maxCandidates: number | null;
  /** How environments are had and tests run: the SWE evaluation's own options. */
  swe: SweOptions;
  /** A model that writes issue-style statements (`--describe-with`); none: the change's own words. */
  describeWith: ModelClient | null;
  /** Told about each validated candidate as it ends. */
  onValidated?: (event: { done: number; total: number; commit: string; kept: boolean; reason?: SweDropReason; seconds: number; reused: boolean }) => void;
  /** Aborting it stops mining between validations. */
  signal?: AbortSignal;
}

/** What `mineSwe` is given: the repository, and any settings that differ from the defaults. */
export interface SweMineInput extends Partial<SweMineOptions> {
  /** The repository to mine: a working tree or a bare repository; it is only read. */
  repoPath: string;
}

const DEFAULT_SWE_MINE_OPTIONS: SweMineOptions = {
  languages: SWE_LANGUAGES,
  minFiles: 1,
  maxFiles: 15,
  since: null,
  until: null,
  runs: DEFAULT_SWE_RUNS,
  p2p: "touched",
  jobs: Math.max(1, Math.floor(os.availableParallelism() / 2)),
  maxCandidates: null,
  swe: {},
  describeWith: null,
};

/** What a SWE mining run saw and made: commits, candidates, validated and reused ones, instances, drops by reason, and time spent. */
export interface SweMineSummary {
  schema_version: number;
  repository: string;
  commits: number;
  /** Changes that touch tests and source within the file limits (before --max-candidates). */
  candidates: number;
  /** Candidates validated in this mining or earlier ones (taken from the store). */
  validated: number;
  reused: number;
  instances: number;
  dropped: Partial<Record<SweDropReason, number>>;
  /** Seconds validations took (this mining's, not the reused ones), and of that the test runs alone. */
  validation_seconds: number;
  test_seconds: number;
  warnings: string[];
}

/** What `mineSwe` found in a repository: the instances kept, each candidate turned down and why, and the counts. */
export interface SweMineResult {
  /** The validated instances, ready to save as SWE samples. */
  instances: MinedInstance[];
  /** Every candidate turned down, with the reason. */
  rejects: SweReject[];
  summary: SweMineSummary;
  /** The environment specs that validated kept instances, by version: YAML for `--env-spec`. */
  envSpecYaml: string;
}

function check(o: SweMineOptions): void {
  const bad = (msg: string): never => {
    throw new GitGoodError("BAD_OPTION", msg);
  };
  if (!Number.isInteger(o.runs) || o.runs < 1) bad("--runs must be a whole number >= 1");
  if (!Number.isInteger(o.jobs) || o.jobs < 1) bad("--jobs must be a whole number >= 1");
  if (!Number.isInteger(o.minFiles) || o.minFiles < 1) bad("--min-files must be a whole number >= 1");
  if (!Number.isInteger(o.maxFiles) || o.maxFiles < o.minFiles) bad("--max-files must be a whole number >= --min-files");
  if (o.maxCandidates !== null && (!Number.isInteger(o.maxCandidates) || o.maxCandidates < 1)) bad("--max-candidates must be a whole number >= 1");
  if (o.since !== null && o.until !== null && o.since > o.until) bad("--since is after --until");
  const unknown = o.languages.filter((l) => !SWE_LANGUAGES.includes(l));
  if (unknown.length > 0) bad(`SWE mining knows the test files of ${SWE_LANGUAGES.join(", ")}, not ${unknown.join(", ")}`);
  if (o.languages.length === 0) bad("at least one language is needed");
  if (o.name !== undefined && !/^[^/\s]+\/[^/\s]+$/.test(o.name)) bad(`--name must look like owner/repo, not '${o.name}'`);
}

/** Runs `work` on each item, `jobs` at a time. */
async function pool<T>(items: readonly T[], jobs: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      await work(at(items, i), i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, worker));
}

/** Opens the repository to mine and settles its `owner/repo` name, which every instance id carries. */
async function openRepository(repoPath: string, given: string | undefined): Promise<{ repo: Repo; branches: Branch[]; name: string }> {
  const repo = await Repo.open(repoPath);
  const branches = await listBranches(repo);
  if (branches.length === 0) {
    throw new GitGoodError("EMPTY_REPOSITORY", `${repoPath} has no branch with a commit: there is nothing to mine`, { path: repo.dir });
  }
  const named = given !== undefined ? { name: given, fromFolder: false } : await repositoryName(repo);
  if (named.fromFolder) {
    throw new GitGoodError("BAD_OPTION", `${folderNameProblem(named.name)}; a SWE instance id names its project: give --name owner/repo`, { path: repo.dir });
  }
  return { repo, branches, name: named.name };
}

/** The candidates to validate: all, or the newest `maxCandidates` of them (with a warning saying so). */
function chooseCandidates(candidates: SweCandidate[], maxCandidates: number | null, warnings: string[]): SweCandidate[] {
  if (maxCandidates === null || candidates.length <= maxCandidates) return candidates;
  warnings.push(`--max-candidates ${maxCandidates}: validated the newest ${maxCandidates} of ${candidates.length} candidates`);
  return candidates.slice(-maxCandidates);
}

/** What validating the chosen candidates gave: the instances kept, their environments, and the tallies of the summary. */
interface Validation {
  instances: MinedInstance[];
  /** The environment each version's instances are tested in, by version. */
  specs: Map<string, EnvSpec>;
  validated: number;
  reused: number;
  validationSeconds: number;
  testSeconds: number;
}

/**
 * Has the model write the problem statement of a kept instance (or reads the one it wrote before); the
 * commit's own words become the hints. Warns, and keeps the commit's words, when every statement the
 * model wrote quoted the change.
 */
async function restate(draft: MinedInstance, o: SweMineOptions, describeWith: ModelClient, store: VerdictStore, vo: ValidateOptions, warnings: string[]): Promise<void> {
  const sample = draft.sample;
  const by = `${describeWith.model}@${DESCRIBE_PROMPT_VERSION}`;
  const statement = store.readStatement(sample, vo, by) ?? (await describeWithModel(describeWith, sample, sample.scenario.problem_statement, o.signal));
  if (statement === null) {
    warnings.push(`${sample.id}: every statement the model wrote quoted the change; the commit's words are kept`);
    return;
  }
  store.writeStatement(sample, vo, by, statement);
  // The developers' own words about the change stay with the instance as its hints, which an agent
  // sees only when the run asks for hints (as an issue thread's comments are in SWE-bench).
  sample.scenario.hints_text = sample.scenario.problem_statement;
  sample.scenario.problem_statement = statement;
  draft.problem_statement_source = `model:${describeWith.model}`;
  draft.problem_statement_prompt = DESCRIBE_PROMPT_VERSION;
}

/**
 * Drafts and validates each chosen candidate, `jobs` at a time, reusing the verdicts kept from an
 * earlier mining; a candidate dropped is added to `rejects` with its reason. The instances keep the
 * candidates' order.
 */
async function validateCandidates(
  repo: Repo,
  name: string,
  chosen: readonly SweCandidate[],
  o: SweMineOptions,
  rejects: SweReject[],
  warnings: string[],
): Promise<Validation> {
  const vo: ValidateOptions = { runs: o.runs, p2p: o.p2p, swe: o.swe, signal: o.signal };
  const store = new VerdictStore(name, o.swe.cacheDir);
  const environments = new Map<string, EnvironmentDrop>();
  const kept: (MinedInstance | null)[] = chosen.map(() => null);
  const tally: Validation = { instances: [], specs: new Map(), validated: 0, reused: 0, validationSeconds: 0, testSeconds: 0 };
  await pool(chosen, o.jobs, async (c, i) => {
    if (o.signal?.aborted) throw new GitGoodError("ABORTED", "mining was cancelled");
    let draft: MinedInstance | null;
    try {
      draft = await draftInstance(repo, name, c, o.languages);
    } catch (err) {
      rejects.push({ commit: c.commit, base: c.base, reason: "missing_objects", detail: toGitGoodError(err).message });
      return;
    }
    if (draft === null) {
      rejects.push({ commit: c.commit, base: c.base, reason: "not_text", detail: "the patch holds bytes that are not UTF-8" });
      return;
    }
    const sample = draft.sample;
    let verdict = store.read(sample, vo);
    const fromStore = verdict !== null;
    if (verdict === null) {
      const v = await validateCandidate(repo, sample, vo, environments);
      tally.validationSeconds += v.seconds;
      tally.testSeconds += v.test_seconds;
      verdict = v;
      if (v.kept || !INFRASTRUCTURE_REASONS.has(v.reason)) store.write(sample, vo, verdict);
    } else tally.reused++;
    tally.validated++;
    o.onValidated?.({ done: tally.validated, total: chosen.length, commit: c.commit, kept: verdict.kept, reason: verdict.kept ? undefined : verdict.reason, seconds: verdict.seconds, reused: fromStore });
    if (!verdict.kept) {
      rejects.push({ commit: c.commit, base: c.base, reason: verdict.reason, detail: verdict.detail });
      return;
    }
    sample.scenario.FAIL_TO_PASS = verdict.FAIL_TO_PASS;
    sample.scenario.PASS_TO_PASS = verdict.PASS_TO_PASS;
    if (sample.scenario.version !== null) tally.specs.set(sample.scenario.version, verdict.spec);
    if (o.describeWith) await restate(draft, o, o.describeWith, store, vo, warnings);
    kept[i] = draft;
  });
  tally.instances = kept.filter((k): k is MinedInstance => k !== null);
  return tally;
}

/** Sets each instance's environment setup commit: the base of its version's oldest instance, as SWE-bench names it. */
function setSetupCommits(instances: readonly MinedInstance[]): void {
  const setupCommit = new Map<string, string>();
  for (const m of instances) {
    const v = m.sample.scenario.version ?? "";
    if (!setupCommit.has(v)) setupCommit.set(v, m.sample.scenario.base_commit);
    m.sample.scenario.environment_setup_commit = setupCommit.get(v) ?? null;
  }
}

/** The environment specs of the project's versions, as SWE evaluation reads them (`envs: {NAME: {VERSION: spec}}`). */
function envSpecsYaml(name: string, specs: ReadonlyMap<string, EnvSpec>): string {
  const byVersion: Record<string, Record<string, unknown>> = {};
  for (const [version, spec] of [...specs].sort(([a], [b]) => (a < b ? -1 : 1))) byVersion[version] = specToYaml(spec);
  return stringifyYaml({ envs: { [name]: byVersion } }, { aliasDuplicateObjects: false });
}

/**
 * Mines SWE-bench-style instances from a repository's history: candidates are changes (commits, and
 * merges as their whole merged branch) that touch tests and source; each is validated in sandboxes with
 * the environment SWE evaluation builds: the tests its test change touches run `runs` times with the
 * test change alone and `runs` times with the whole change; FAIL_TO_PASS (fail → pass) and PASS_TO_PASS
 * (pass → pass) count only tests with the same outcome in every run. Every dropped candidate is returned
 * with its reason. The repository is only read; verdicts are kept so that a stopped mining resumes.
 */
export async function mineSwe(input: SweMineInput): Promise<SweMineResult> {
  const { repoPath, ...options } = input;
  const o: SweMineOptions = { ...DEFAULT_SWE_MINE_OPTIONS, ...options };
  check(o);
  const { repo, branches, name } = await openRepository(repoPath, o.name);
  const warnings: string[] = [];
  if (repo.shallow) warnings.push("shallow clone: changes whose parent lies beyond the shallow boundary are not candidates");
  const graph = await readCommitGraph(repo, [...new Set(branches.map((b) => b.oid))]);
  const found = await findCandidates(repo, graph, { languages: o.languages, minFiles: o.minFiles, maxFiles: o.maxFiles, since: o.since, until: o.until, jobs: o.jobs });
  const rejects = [...found.rejects];
  const chosen = chooseCandidates(found.candidates, o.maxCandidates, warnings);
  const v = await validateCandidates(repo, name, chosen, o, rejects, warnings);
  setSetupCommits(v.instances);
  rejects.sort((a, b) => (a.commit < b.commit ? -1 : a.commit > b.commit ? 1 : 0));
  return {
    instances: v.instances,
    rejects,
    envSpecYaml: envSpecsYaml(name, v.specs),
    summary: {
      schema_version: SWE_SUMMARY_SCHEMA_VERSION,
      repository: name,
      commits: graph.size,
      candidates: found.candidates.length,
      validated: v.validated,
      reused: v.reused,
      instances: v.instances.length,
      dropped: countReasons(rejects),
      validation_seconds: Math.round(v.validationSeconds * 10) / 10,
      test_seconds: Math.round(v.testSeconds * 10) / 10,
      warnings,
    },
  };
}
